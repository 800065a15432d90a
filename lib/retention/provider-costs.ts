import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type Bounds, daysAgo, inBatches } from "./batch";
import { RETENTION } from "./periods";

/** The first instant (UTC) of the month of a timestamptz expression. */
const monthOf = (at: SQL) => sql`(date_trunc('month', (${at}) at time zone 'UTC') at time zone 'UTC')`;

/**
 * Folds provider cost events of calendar months (UTC) wholly older than the retention into
 * provider_cost_monthly_totals, per workspace, provider, operation and status: one statement per batch deletes
 * the events and adds them to their month's totals, so a sum over both is the same before, during and after.
 * Events being folded by a concurrent run are skipped, never counted twice.
 */
export function foldProviderCosts(db: Database, opts: Bounds): Promise<number> {
  return inBatches(opts, async () => {
    const result = await db.execute<{ folded: number }>(sql`
      with picked as (
        select id from provider_cost_events
        where created_at < ${monthOf(daysAgo(RETENTION.providerCostEventsDays))}
        limit ${opts.batchSize}
        for update skip locked
      ), gone as (
        delete from provider_cost_events e using picked p where e.id = p.id
        returning e.workspace_id, e.created_at, e.provider, e.operation, e.status, e.units, e.cost_microusd
      ), added as (
        insert into provider_cost_monthly_totals as t (workspace_id, month, provider, operation, status, events, units, cost_microusd)
        select workspace_id, ${monthOf(sql`created_at`)}, provider, operation, status, count(*), sum(units), sum(cost_microusd)
        from gone group by 1, 2, 3, 4, 5
        on conflict (workspace_id, month, provider, operation, status) do update
          set events = t.events + excluded.events, units = t.units + excluded.units, cost_microusd = t.cost_microusd + excluded.cost_microusd
      )
      select count(*)::int as folded from gone`);
    return Number(result.rows[0]?.folded ?? 0);
  });
}
