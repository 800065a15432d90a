import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { consumerRuns } from "../lib/jobs/consumer-worker";
import { queueWorker } from "../lib/jobs/queue-worker";
import { eq } from "drizzle-orm";
import { repostAttempts } from "../db/schema";
import { executeRepost, fail } from "../lib/repost/execute";

/**
 * Reposts (or reblogs) one queued attempt. "steps" mode: the provider call is reconciled on every run
 * (record key from the attempt id; `reblogged` read first), so a redelivery or retry never reposts twice.
 */
export const repost: ConsumerDefinition<"repost.execute"> = {
  kind: "repost.execute",
  mode: "steps",
  async handle({ db, env, job }) {
    await executeRepost(db, env, job.payload.attempt_id);
  },
  async onGiveUp({ db, job }) {
    const [attempt] = await db.select().from(repostAttempts).where(eq(repostAttempts.id, job.payload.attempt_id));
    if (attempt) await fail(db, attempt, attempt.errorCode ?? "gave_up", "retries exhausted");
  },
};

export default queueWorker(consumerRuns(repost));
