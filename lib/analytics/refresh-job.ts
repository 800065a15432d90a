import { eq, sql } from "drizzle-orm";
import { analyticsCollectionRuns, jobReceipts } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { ConsumerDefinition } from "../jobs/consumer";
import { collectAccount } from "./collect-account";

/**
 * The `analytics.refresh` job: one account's collection (./collect-account.ts), counted into its run.
 * It runs in "steps" mode, so no transaction is open while the provider is called: collection commits its
 * own short transaction after reading, and is safe to run again (items are upserted, measurements are a
 * time series). Counting into the run goes with the job's receipt, in its request, so a redelivered job
 * does not count twice. Provider failures are recorded on the account's coverage and never thrown: a
 * rate-limited or broken provider neither burns the job's attempts nor holds up other accounts.
 */

/** Count one job into its run; the last completes the run. Skipped when the job's receipt exists already. */
function countIntoRunOnce(q: Queryable, runId: string, jobId: string, collected: number) {
  const total = sql`${analyticsCollectionRuns.accountsCollected} + ${collected}`;
  return q
    .update(analyticsCollectionRuns)
    .set({
      accountsCollected: total,
      status: sql`case when ${total} >= ${analyticsCollectionRuns.accountsQueued} then 'completed' else 'running' end`,
      completedAt: sql`case when ${total} >= ${analyticsCollectionRuns.accountsQueued} then now() else null end`,
    })
    .where(sql`${analyticsCollectionRuns.id} = ${runId} and not exists (select 1 from ${jobReceipts} where ${jobReceipts.jobId} = ${jobId})`);
}

export const analyticsRefresh: ConsumerDefinition<"analytics.refresh"> = {
  kind: "analytics.refresh",
  mode: "steps",
  async handle({ db, env, job }) {
    const { account_id, run_id } = job.payload;
    if (account_id) await collectAccount(db, env, account_id);
    if (!run_id) return;
    return { statements: (q) => [countIntoRunOnce(q, run_id, job.job_id, account_id ? 1 : 0)], receiptIf: sql`true`, otherwise: async () => {} };
  },
  async onGiveUp({ db, job }) {
    if (!job.payload.run_id) return;
    await db.update(analyticsCollectionRuns).set({ status: "failed", completedAt: sql`now()` }).where(eq(analyticsCollectionRuns.id, job.payload.run_id));
  },
};
