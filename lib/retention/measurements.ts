import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type Bounds, daysAgo, inBatches } from "./batch";
import { RETENTION } from "./periods";

/** The retention_watermarks row of this sweep. */
export const MEASUREMENTS_SWEEP = "analytics_measurements";

/**
 * Thins analytics measurements older than the retention to what GET /analytics and repost automation still
 * read: in each series (a content item's metric, or an account-level metric), a measurement goes once a newer
 * one of the series is itself past the cutoff, unless it is the newest available one and that newer one is
 * unavailable. So each series keeps its latest reading and its last value before any range the API can ask
 * for (the follower baseline), and everything inside the window.
 *
 * The sweep walks the measurements crossing the cutoff in (collected_at, id) order from a watermark, deleting
 * what each one supersedes: every row is walked once and every deleted row found by an index, so a run costs
 * what it walks and removes, never a re-read of the rows it keeps. Re-running a batch deletes nothing more.
 */
export async function sweepMeasurements(db: Database, opts: Bounds): Promise<{ analyticsMeasurements: number; analyticsMeasurementsWalked: number }> {
  let removed = 0;
  // Batches go on while full batches are walked, whatever they removed.
  const walked = await inBatches(opts, async () => {
    const result = await db.execute<{ walked: number; removed: number }>(sql`
      with mark as (
        select coalesce((select position_at from retention_watermarks where sweep = ${MEASUREMENTS_SWEEP}), '-infinity'::timestamptz) as at,
               coalesce((select position_id from retention_watermarks where sweep = ${MEASUREMENTS_SWEEP}), '') as id
      ), crossing as (
        select m.id, m.account_id, m.content_item_id, m.metric, m.availability, m.collected_at
        from analytics_measurements m, mark
        where (m.collected_at, m.id) > (mark.at, mark.id) and m.collected_at < ${daysAgo(RETENTION.analyticsMeasurementsDays)}
        order by m.collected_at, m.id
        limit ${opts.batchSize}
      ), item_gone as (
        delete from analytics_measurements m using crossing c
        where c.content_item_id is not null and m.content_item_id = c.content_item_id and m.metric = c.metric
          and m.collected_at < c.collected_at and (m.availability = 'unavailable' or c.availability = 'available')
        returning m.id
      ), account_gone as (
        delete from analytics_measurements m using crossing c
        where c.content_item_id is null and m.content_item_id is null and m.account_id = c.account_id and m.metric = c.metric
          and m.collected_at < c.collected_at and (m.availability = 'unavailable' or c.availability = 'available')
        returning m.id
      ), moved as (
        insert into retention_watermarks (sweep, position_at, position_id)
        select ${MEASUREMENTS_SWEEP}, collected_at, id from crossing order by collected_at desc, id desc limit 1
        on conflict (sweep) do update set position_at = excluded.position_at, position_id = excluded.position_id, updated_at = now()
      )
      select (select count(*) from crossing)::int as walked, ((select count(*) from item_gone) + (select count(*) from account_gone))::int as removed`);
    const row = result.rows[0];
    removed += Number(row?.removed ?? 0);
    return Number(row?.walked ?? 0);
  });
  return { analyticsMeasurements: removed, analyticsMeasurementsWalked: walked };
}
