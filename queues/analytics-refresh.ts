import { collectAccount, countIntoRun } from "../lib/analytics/collect-account";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";
import { analyticsCollectionRuns } from "../db/schema";
import { eq, sql } from "drizzle-orm";

/**
 * Collects one account (lib/analytics/collect-account.ts). Its database effects share the transaction of
 * the job's receipt, so a redelivered job adds nothing twice. A provider failure is recorded on the
 * account's coverage (and retried when it is next eligible), not thrown: a rate-limited provider does not
 * burn through the job's attempts or hold up other accounts.
 */
export const analyticsRefresh: ConsumerDefinition<"analytics.refresh"> = {
  kind: "analytics.refresh",
  async handle({ tx, env, job }) {
    if (job.payload.account_id) await collectAccount(tx, env, job.payload.account_id);
    if (job.payload.run_id) await countIntoRun(tx, job.payload.run_id, job.payload.account_id ? 1 : 0);
  },
  async onGiveUp({ db, job }) {
    if (!job.payload.run_id) return;
    await db.update(analyticsCollectionRuns).set({ status: "failed", completedAt: sql`now()` }).where(eq(analyticsCollectionRuns.id, job.payload.run_id));
  },
};

export default queueWorker(consumerRuns(analyticsRefresh));
