import { Column, DrizzleQueryError, fillPlaceholders, is, SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-serverless";
import { types, type Pool } from "@neondatabase/serverless";

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
export function compileStatement<Row>(statement: { toSQL(): { sql: string; params: unknown[] } }, fields: Record<keyof Row & string, unknown>): CompiledStatement<Row> {
  const { sql, params } = statement.toSQL();
  return { text: sql, params, fields: Object.entries(fields) as [keyof Row & string, unknown][] };
}

/** Date and time values stay text for their columns to map, as drizzle's own Neon session has them. */
const RAW_TEXT_TYPES = new Set<number>([types.builtins.TIMESTAMPTZ, types.builtins.TIMESTAMP, types.builtins.DATE, types.builtins.INTERVAL, 1115, 1182, 1185, 1187, 1231]);
const DRIZZLE_TYPES = {
  getTypeParser: (typeId: number, format?: string) => (RAW_TEXT_TYPES.has(typeId) ? (value: string) => value : types.getTypeParser(typeId, format as never)),
};

/** Runs a compiled statement (one round trip: over HTTP when the pool has it) and maps its rows. */
export async function runCompiled<Row>(pool: Pool, statement: CompiledStatement<Row>, values: Record<string, unknown>): Promise<Row[]> {
  const params = fillPlaceholders(statement.params, values);
  // Failures look as they do from drizzle (the driver's error as `cause`), so every handler reads them alike.
  const result = await pool.query({ text: statement.text, values: params, rowMode: "array", types: DRIZZLE_TYPES }).catch((error: unknown) => {
    throw new DrizzleQueryError(statement.text, params, error as Error);
  });
  return (result.rows as unknown[][]).map((cells) => {
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
