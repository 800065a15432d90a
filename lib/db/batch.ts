import { is, SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-serverless";
import { batchSenderOf, type BatchStatement } from "./batch-senders";
import type { Database, Queryable } from "./client";
import { BoundStatement, failureOf, mapCompiledRows, queryOf } from "./compiled";
import { StatementPool } from "./statement-pool";

/** A statement drizzle has sent, waiting for its result from the batch. */
interface Captured extends BatchStatement {
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** A statement of a batch: a drizzle builder, an `sql` statement, or a compiled statement with its values. */
export type BatchItem = PromiseLike<unknown> | SQL | BoundStatement<any>;
type Item = BatchItem;

/** A drizzle builder's result as drizzle maps it, a compiled statement's as its rows; an `sql` statement's is the driver's raw result. */
type Results<T extends readonly Item[]> = {
  -readonly [K in keyof T]: T[K] extends SQL
    ? { rows: Record<string, unknown>[]; rowCount: number | null }
    : T[K] extends BoundStatement<infer Row>
      ? Row[]
      : Awaited<T[K]>;
};

/**
 * Run statements that must commit together and need nothing read in between (each one's values are known
 * before any runs) as ONE transaction, all or nothing, in order. Over SQL-over-HTTP that is one request
 * (Neon's `transaction([...])`) instead of an interactive transaction's begin, statements and commit,
 * each a round trip on a WebSocket. `build` gets a database to make the statements with: drizzle builders
 * (select, insert, update, delete), each of which is one statement, or one `sql` statement where a builder
 * cannot say it (lib/db/insert-where.ts); results come back mapped as usual.
 * A statement can still read what an earlier one wrote (they run in one transaction, in order).
 * Without an HTTP endpoint, or inside a caller's transaction, the statements run in a (nested) transaction.
 */
export async function inOneTransaction<T extends readonly Item[]>(db: Queryable, build: (q: Queryable) => [...T]): Promise<Results<T>> {
  const send = batchSenderOf(db);
  if (!send) {
    return db.transaction(async (tx) => {
      const out: unknown[] = [];
      for (const statement of build(tx))
        out.push(await (statement instanceof BoundStatement ? runOnConnection(tx, statement) : is(statement, SQL) ? tx.execute(statement) : statement));
      return out as Results<T>;
    });
  }
  // The builders run against a client that records each statement instead of sending it; drizzle then
  // maps the results handed back to it exactly as it maps a single statement's.
  const captured: Captured[] = [];
  let arrived: (() => void) | undefined;
  const client = new StatementPool(
    {},
    (statement) =>
      new Promise((resolve, reject) => {
        captured.push({ ...statement, resolve, reject });
        arrived?.();
      }),
  );
  const capturing: Database = drizzle({ client });
  const statements = build(capturing);
  // A promise has already started on its own (`db.execute` does): its place in the order is unknown.
  if (statements.some((s) => s instanceof Promise)) {
    await Promise.allSettled(statements.filter((s) => s instanceof Promise));
    throw new Error("inOneTransaction: each item must be one drizzle statement builder (not a running promise such as db.execute)");
  }
  const running: Promise<unknown>[] = [];
  // One at a time, so the order sent is the order given.
  for (const statement of statements) {
    if (statement instanceof BoundStatement) {
      // Compiled: nothing for drizzle to build or map; it takes its place at once.
      const { text, values, types } = queryOf(statement);
      const result = new Promise((resolve, reject) =>
        captured.push({
          text,
          params: values,
          arrayMode: true,
          types,
          resolve: (r) => resolve(mapCompiledRows(statement.statement, (r as { rows: unknown[][] }).rows)),
          reject: (e) => reject(failureOf(statement, e)),
        }),
      );
      result.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
      running.push(result);
      continue;
    }
    const before = captured.length;
    const seen = new Promise<void>((resolve) => (arrived = resolve));
    // Each runs (once: a drizzle query runs again at every `then`) when wrapped, so now, in its turn.
    const result = Promise.resolve(is(statement, SQL) ? capturing.execute(statement) : statement);
    running.push(result);
    await Promise.race([
      seen,
      result.then(
        () => {},
        () => {},
      ),
    ]);
    if (captured.length !== before + 1) {
      // It failed before reaching the database (or is not a single statement): nothing is sent.
      const failure = new Error("inOneTransaction: each item must be one drizzle statement");
      for (const c of captured) c.reject(failure);
      await Promise.allSettled(running);
      await result;
      throw failure;
    }
  }
  arrived = undefined;
  try {
    const results = await send(captured.map((c) => ({ text: c.text, params: c.params, arrayMode: c.arrayMode, types: c.types })));
    captured.forEach((c, i) => c.resolve(results[i]));
  } catch (error) {
    for (const c of captured) c.reject(error);
  }
  return (await Promise.all(running)) as Results<T>;
}

/** A compiled statement in the caller's transaction on the WebSocket: on its connection, as drizzle's own would run. */
async function runOnConnection<Row>(tx: Queryable, bound: BoundStatement<Row>): Promise<unknown[]> {
  const client = (tx as unknown as { session: { client: { query(config: ReturnType<typeof queryOf>): Promise<{ rows: unknown[][] }> } } }).session.client;
  const result = await client.query(queryOf(bound)).catch((error: unknown) => {
    throw failureOf(bound, error);
  });
  return mapCompiledRows(bound.statement, result.rows);
}

/** A group of statements by name: its results come back under the same names (inOneTransactionNamed). */
export type NamedStatements = Record<string, BatchItem>;
type ResultOf<T> = T extends SQL ? { rows: Record<string, unknown>[]; rowCount: number | null } : T extends BoundStatement<infer Row> ? Row[] : Awaited<T>;
export type NamedResults<G extends NamedStatements> = { [K in keyof G]: ResultOf<G[K]> };

/**
 * inOneTransaction for statements given by name, in groups (one group per rendition, say): one transaction,
 * one request, each group's results under its statements' names, so no caller reads results by position.
 * Statements run in each group's key order, groups in the order given.
 */
export async function inOneTransactionNamed<G extends readonly NamedStatements[]>(
  db: Queryable,
  build: (q: Queryable) => [...G],
): Promise<{ [I in keyof G]: NamedResults<G[I]> }> {
  let groups: NamedStatements[] = [];
  const results = (await inOneTransaction(db, (q) => {
    groups = build(q);
    return groups.flatMap((g) => Object.values(g));
  })) as unknown[];
  let at = 0;
  return groups.map((g) => {
    const named: Record<string, unknown> = {};
    for (const key of Object.keys(g)) named[key] = results[at++];
    return named;
  }) as { [I in keyof G]: NamedResults<G[I]> };
}
