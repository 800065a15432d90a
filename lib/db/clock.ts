import { sql } from "drizzle-orm";
import type { Queryable } from "./client";

/**
 * The database's time, for a run that compares many stored times with "now" (CONTRACT §9: the database's clock
 * decides, never a Worker's, which may be minutes off). One statement per run, not per row.
 */
export async function databaseNow(q: Queryable): Promise<Date> {
  const { rows } = await q.execute<{ now: string }>(sql`select now()::text as now`);
  return new Date(rows[0].now);
}
