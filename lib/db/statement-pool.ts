import {
  Pool,
  type PoolConfig,
  type QueryArrayConfig,
  type QueryArrayResult,
  type QueryConfig,
  type QueryResult,
  type QueryResultRow,
  type Submittable,
} from "@neondatabase/serverless";
import type { BatchStatement } from "./batch-senders";

/** pg's callback form of a query. */
type Done<R> = (err: Error, result: R) => void;
/** pg's values of a query whose parameters are I (its own `QueryConfigValues` is not exported). */
type Values<I> = I extends unknown[] ? I : never;

/**
 * Answers a one-shot statement as pg's `Pool.query` would (`rows`, `rowCount`, `fields`, `command`; a row an
 * array when `arrayMode`), in place of a connection: over HTTP, or into a batch being captured.
 */
export type SendStatement = (statement: BatchStatement) => Promise<unknown>;

/**
 * A Pool whose one-shot statements in promise form (how drizzle sends every statement outside a transaction)
 * go to `send`; everything else, `connect()` included (what drizzle's `transaction()` uses: an interactive
 * transaction must read, decide and write on one connection), stays the Pool's own. Without `send` it is a
 * plain Pool. drizzle wants a Pool (it checks `instanceof Pool` to give a transaction its own connection), so
 * this overrides `query`, restating pg's overloads: an override must answer each of them.
 */
export class StatementPool extends Pool {
  constructor(
    options: PoolConfig,
    private readonly send: SendStatement | undefined,
  ) {
    super(options);
  }

  override query<T extends Submittable>(queryStream: T): T;
  override query<R extends unknown[] = unknown[], I = unknown[]>(queryConfig: QueryArrayConfig<I>, values?: Values<I>): Promise<QueryArrayResult<R>>;
  override query<R extends QueryResultRow = QueryResultRow, I = unknown[]>(queryConfig: QueryConfig<I>): Promise<QueryResult<R>>;
  override query<R extends QueryResultRow = QueryResultRow, I = unknown[]>(
    queryTextOrConfig: string | QueryConfig<I>,
    values?: Values<I>,
  ): Promise<QueryResult<R>>;
  override query<R extends unknown[] = unknown[], I = unknown[]>(queryConfig: QueryArrayConfig<I>, callback: Done<QueryArrayResult<R>>): void;
  override query<R extends QueryResultRow = QueryResultRow, I = unknown[]>(queryTextOrConfig: string | QueryConfig<I>, callback: Done<QueryResult<R>>): void;
  override query<R extends QueryResultRow = QueryResultRow, I = unknown[]>(queryText: string, values: Values<I>, callback: Done<QueryResult<R>>): void;
  override query(...call: QueryCall): unknown {
    if (call.length === 3) return super.query(...call);
    const [config, second] = call;
    if (typeof config !== "string" && "submit" in config) return super.query(config);
    if (typeof second === "function") return super.query(config, second);
    if (!this.send) return super.query(config, second);
    return this.send({
      text: typeof config === "string" ? config : config.text,
      params: second ?? (typeof config === "string" ? [] : (config.values ?? [])),
      arrayMode: typeof config !== "string" && "rowMode" in config && config.rowMode === "array",
      types: (typeof config === "string" ? undefined : config.types) ?? this.options.types,
    });
  }
}

/** The argument lists of pg's `Pool.query`, as the overloads above take them. */
type QueryCall =
  | [queryStream: Submittable]
  | [config: string | QueryConfig, values?: unknown[]]
  | [config: string | QueryConfig, callback: Done<QueryResult>]
  | [queryText: string, values: unknown[], callback: Done<QueryResult>];
