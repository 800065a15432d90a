import { eq, sql } from "drizzle-orm";
import { analyticsCollectionRuns } from "../db/schema";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { createConsumerWorker } from "../lib/jobs/consumer-worker";

export interface AnalyticsRefreshPayload {
  run_id: string;
}

/** Completes a collection run. Provider collection joins here once accounts exist (issue 3). */
export const analyticsRefresh: ConsumerDefinition<AnalyticsRefreshPayload> = {
  kind: "analytics.refresh",
  async handle({ tx, job }) {
    await tx
      .update(analyticsCollectionRuns)
      .set({ status: "completed", accountsCollected: 0, completedAt: sql`now()` })
      .where(eq(analyticsCollectionRuns.id, job.payload.run_id));
  },
  async onGiveUp({ db, job }) {
    await db.update(analyticsCollectionRuns).set({ status: "failed", completedAt: sql`now()` }).where(eq(analyticsCollectionRuns.id, job.payload.run_id));
  },
};

export default createConsumerWorker(analyticsRefresh);
