import { and, gt, inArray, or, sql, type SQL } from "drizzle-orm";
import { outboxJobs } from "../../db/schema";
import type { Queryable } from "../db/client";
import { JOB_KINDS, type JobKind } from "./kinds";

/** Where the jobs of one kind are (GET /admin/jobs/metrics). */
export interface JobKindMetrics {
  kind: JobKind;
  /** Written, not yet sent to the kind's queue (due or scheduled for later). */
  pending: number;
  /** Sent to the queue and not finished: waiting there or running. */
  in_flight: number;
  /** An attempt failed; another is scheduled. */
  retrying: number;
  /** Given up after every attempt (kept 14 days), dead-letter records included. */
  dead: number;
  /** Seconds since the longest-waiting pending job came due; null when none is due. */
  oldest_pending_age_seconds: number | null;
  /** Finished in the last hour. */
  done_last_hour: number;
}

const state = (s: string) => sql`${outboxJobs.state} = ${s}`;
const count = (where: SQL) => sql<number>`(count(*) filter (where ${where}))::int`;
const hourAgo = sql`now() - interval '1 hour'`;

/**
 * One grouped statement over outbox_jobs: the unfinished rows (the state index) and those finished in the last
 * hour (the finished_at index), never the week of done rows behind them. Ages by the database's clock.
 * Every kind of lib/jobs/kinds.ts is answered, with zeros when it has no rows. `onlyJobIds`: count only these
 * (a test sharing the outbox with others).
 */
export async function jobMetrics(q: Queryable, opts: { onlyJobIds?: string[] } = {}): Promise<JobKindMetrics[]> {
  const rows = await q
    .select({
      kind: outboxJobs.kind,
      pending: count(state("pending")),
      in_flight: count(state("queued")),
      retrying: count(state("retrying")),
      dead: count(state("dead")),
      oldest_pending_age_seconds: sql<
        number | null
      >`floor(extract(epoch from now() - min(${outboxJobs.nextAttemptAt}) filter (where ${state("pending")} and ${outboxJobs.nextAttemptAt} <= now())))::int`,
      done_last_hour: count(sql`${state("done")} and ${outboxJobs.finishedAt} > ${hourAgo}`),
    })
    .from(outboxJobs)
    .where(
      and(
        inArray(outboxJobs.kind, Object.keys(JOB_KINDS)),
        opts.onlyJobIds ? inArray(outboxJobs.id, opts.onlyJobIds) : undefined,
        or(inArray(outboxJobs.state, ["pending", "queued", "retrying", "dead"]), gt(outboxJobs.finishedAt, hourAgo)),
      ),
    )
    .groupBy(outboxJobs.kind);
  const byKind = new Map(rows.map((r) => [r.kind, r]));
  return (Object.keys(JOB_KINDS) as JobKind[]).map((kind) => {
    const r = byKind.get(kind);
    return {
      kind,
      pending: r?.pending ?? 0,
      in_flight: r?.in_flight ?? 0,
      retrying: r?.retrying ?? 0,
      dead: r?.dead ?? 0,
      oldest_pending_age_seconds: r?.oldest_pending_age_seconds ?? null,
      done_last_hour: r?.done_last_hour ?? 0,
    };
  });
}
