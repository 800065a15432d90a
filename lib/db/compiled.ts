import { Column, DrizzleQueryError, fillPlaceholders, is, sql, SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-serverless";
import type { PgDialect } from "drizzle-orm/pg-core";
import { types, type CustomTypesConfig, type Pool } from "@neondatabase/serverless";

/**
 * A named parameter of a compiled statement, standing for a value of type T (the type its place wants, inferred
 * there). drizzle takes a placeholder wherever a value goes, in `set` too (filled and encoded by the column at
 * each run), but its `set` type and the statement helpers that take values do not say so: this is the one
 * place that converts, through `unknown`.
 */
export const placeholder = <T>(name: string): T => sql.placeholder(name) as unknown as T;

/** The row type of a compiled statement that returns none. */
export type NoRow = Record<string, never>;

/** Builds statements without a connection: only their SQL is wanted. */
export const statementBuilder = drizzle.mock();

export interface CompiledStatement<Row> {
  text: string;
  params: unknown[];
  /** The selected fields in the statement's column order, to map each row as drizzle would. */
  fields: [keyof Row & string, unknown][];
}

/**
 * A statement whose SQL drizzle builds once per isolate instead of once per request: building a select with
 * its joins was among the largest items of a small request in the Worker's CPU profiles, and authentication
 * runs one on every request. Parameters are `sql.placeholder(name)`, filled at each run; `fields` must be the
 * selection the statement was built with (its keys, in order).
 */
export function compileStatement<Row>(
  statement: { toSQL(): { sql: string; params: unknown[] } },
  fields: Record<keyof Row & string, unknown>,
): CompiledStatement<Row> {
  const { sql, params } = statement.toSQL();
  return { text: sql, params, fields: Object.entries(fields) as [keyof Row & string, unknown][] };
}

/** Date and time values stay text for their columns to map, as drizzle's own Neon session has them. */
const RAW_TEXT_TYPES = new Set<number>([
  types.builtins.TIMESTAMPTZ,
  types.builtins.TIMESTAMP,
  types.builtins.DATE,
  types.builtins.INTERVAL,
  1115,
  1182,
  1185,
  1187,
  1231,
]);
const DRIZZLE_TYPES: CustomTypesConfig = {
  getTypeParser: (typeId: number, format?: "text" | "binary") => (RAW_TEXT_TYPES.has(typeId) ? (value: string) => value : types.getTypeParser(typeId, format)),
};

/** An `sql` statement compiled the same way (where a builder cannot say it, as with lib/db/insert-where.ts). */
export function compileSql<Row>(statement: SQL, fields: Record<keyof Row & string, unknown>): CompiledStatement<Row> {
  return compileStatement({ toSQL: () => (statementBuilder as unknown as { dialect: PgDialect }).dialect.sqlToQuery(statement) }, fields);
}

/** A compiled statement with the values of one run, to go in a batch (lib/db/batch.ts). */
export class BoundStatement<Row> {
  readonly params: unknown[];
  constructor(
    readonly statement: CompiledStatement<Row>,
    values: Record<string, unknown>,
  ) {
    this.params = fillPlaceholders(statement.params, values);
  }
}

/** The query a bound statement sends, as `Pool.query` and the batch sender take it. */
export const queryOf = <Row>(bound: BoundStatement<Row>) => ({
  text: bound.statement.text,
  values: bound.params,
  rowMode: "array" as const,
  types: DRIZZLE_TYPES,
});

/** Failures look as they do from drizzle (the driver's error as `cause`), so every handler reads them alike. */
export const failureOf = <Row>(bound: BoundStatement<Row>, error: unknown) => new DrizzleQueryError(bound.statement.text, bound.params, error as Error);

/** Runs a compiled statement (one round trip: over HTTP when the pool has it) and maps its rows. */
export async function runCompiled<Row>(pool: Pool, statement: CompiledStatement<Row>, values: Record<string, unknown>): Promise<Row[]> {
  const bound = new BoundStatement(statement, values);
  const result = await pool.query(queryOf(bound)).catch((error: unknown) => {
    throw failureOf(bound, error);
  });
  return mapCompiledRows(statement, result.rows as unknown[][]);
}

/** Rows (as arrays) mapped as drizzle maps the statement's fields. */
export function mapCompiledRows<Row>(statement: CompiledStatement<Row>, rows: unknown[][]): Row[] {
  return rows.map((cells) => {
    const row: Record<string, unknown> = {};
    statement.fields.forEach(([key, field], i) => {
      const value = cells[i];
      if (value === null || value === undefined) row[key] = null;
      else if (is(field, Column)) row[key] = field.mapFromDriverValue(value);
      else if (is(field, SQL)) row[key] = (field as unknown as { decoder: { mapFromDriverValue(v: unknown): unknown } }).decoder.mapFromDriverValue(value);
      else row[key] = value;
    });
    return row as Row;
  });
}
