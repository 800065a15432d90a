import { and, eq, sql, type SQL } from "drizzle-orm";
import { outboxJobs, type JobState } from "../../db/schema";
import type { Queryable } from "../db/client";

/**
 * Records where a job is on its outbox row (what GET /admin/jobs shows). Bookkeeping only: whether a job
 * may run again is decided by `job_receipts`, never by this.
 */
export async function recordJobState(
  q: Queryable,
  jobId: string,
  state: Exclude<JobState, "pending" | "queued">,
  attempt: number,
  error?: string,
): Promise<void> {
  await jobStateStatement(q, jobId, state, attempt, error);
}

/** The same as a statement not yet run, to go in a batch (lib/db/batch.ts); with `onlyIf`, written only if it holds. */
export function jobStateStatement(q: Queryable, jobId: string, state: Exclude<JobState, "pending" | "queued">, attempt: number, error?: string, onlyIf?: SQL) {
  const finished = state === "done" || state === "dead";
  return q
    .update(outboxJobs)
    .set({
      state,
      attempts: attempt,
      updatedAt: sql`now()`,
      ...(error !== undefined ? { jobError: error.slice(0, 1000) } : {}),
      ...(finished ? { finishedAt: sql`now()` } : {}),
    })
    .where(and(eq(outboxJobs.id, jobId), onlyIf));
}
