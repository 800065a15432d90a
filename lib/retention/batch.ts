import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";

export interface SweepOptions {
  /** Rows deleted per statement: short transactions, short locks. */
  batchSize?: number;
  /** Statements per table per run: a backlog is worked off over several runs, never in one long one. */
  maxBatches?: number;
}

export type Bounds = Required<SweepOptions>;

export const bounds = (options: SweepOptions = {}): Bounds => ({ batchSize: options.batchSize ?? 500, maxBatches: options.maxBatches ?? 10 });

/** `now() - n hours|days`, by the database's clock. */
export const hoursAgo = (n: number) => sql`now() - make_interval(hours => ${n})`;
export const daysAgo = (n: number) => sql`now() - make_interval(days => ${n})`;

/**
 * Runs one batch statement (answering how many rows it handled) until a batch comes back short or the batches
 * run out. Each statement stands alone, so a run stopped half way has done only whole batches.
 */
export async function inBatches(opts: Bounds, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < opts.maxBatches; i++) {
    const n = await batch();
    total += n;
    if (n < opts.batchSize) break;
  }
  return total;
}

/**
 * Deletes the rows of `table` matching `where`, at most `batchSize` a statement (picked by ctid). `where` must
 * be a range on an indexed time column, so each statement reads about what it deletes.
 */
export function deleteWhere(db: Database, table: SQL, where: SQL, opts: Bounds): Promise<number> {
  return inBatches(opts, async () => {
    const result = await db.execute(sql`delete from ${table} where ctid = any(array(select ctid from ${table} where ${where} limit ${opts.batchSize}))`);
    return result.rowCount ?? 0;
  });
}
