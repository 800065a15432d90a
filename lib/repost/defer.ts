import { and, eq, sql } from "drizzle-orm";
import { repostAttempts } from "../../db/schema";
import type { Database } from "../db/client";
import { MAX_ATTEMPTS } from "../jobs/retry-policy";
import { enqueueJob } from "../jobs/outbox";
import type { RepostJobPayload } from "../jobs/kinds";
import { ProviderError } from "../providers/types";

type Attempt = typeof repostAttempts.$inferSelect;

/** Longest wait for a platform's reset (LinkedIn's daily limits reset at midnight UTC); a later claim is not trusted. */
const MAX_WAIT_SECONDS = 86_400;

/**
 * A rate-limited repost waits for the platform's reset (CONTRACT §9) rather than the queue's backoff, which
 * stops at 15 minutes and 8 tries, too soon for a daily limit: the attempt stays queued, its error code says
 * why, and a new job for it is due at the reset. Each deferral counts as one of the attempt's tries, so a
 * platform that keeps refusing still ends it (the last tries go through the queue's own retries). True when deferred.
 */
export async function deferToReset(db: Database, attempt: Attempt, err: unknown): Promise<boolean> {
  if (!(err instanceof ProviderError) || err.info.kind !== "rate_limited" || !err.info.retryAt) return false;
  if (attempt.attempts + 1 >= MAX_ATTEMPTS) return false;
  const waitSeconds = (err.info.retryAt.getTime() - Date.now()) / 1000;
  const when = waitSeconds > MAX_WAIT_SECONDS ? { delaySeconds: MAX_WAIT_SECONDS } : { notBefore: err.info.retryAt };
  await db.transaction(async (tx) => {
    const [still] = await tx
      .update(repostAttempts)
      .set({ attempts: sql`${repostAttempts.attempts} + 1`, errorCode: err.info.code })
      .where(and(eq(repostAttempts.id, attempt.id), eq(repostAttempts.status, "queued")))
      .returning({ id: repostAttempts.id });
    if (still) await enqueueJob(tx, "repost.execute", attempt.workspaceId, { attempt_id: attempt.id } satisfies RepostJobPayload, when);
  });
  return true;
}
