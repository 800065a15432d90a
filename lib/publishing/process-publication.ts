import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { renditions } from "../../db/schema";
import type { Database, Queryable } from "../db/client";
import type { Env } from "../env";
import type { StepsFinish } from "../jobs/consumer";
import { claimRenditions, deliverClaimed, type Claim } from "./deliver-rendition";
import { outcomeBatch } from "./outcome-batch";
import { settleWith } from "./settle";

const IN_PROGRESS = ["queued", "retrying", "reconciling", "publishing"] as const;
/**
 * Renditions go to different destinations and each is claimed under its own lease, so they are delivered
 * side by side, a few at a time (a Worker invocation keeps at most six connections open at once).
 */
const DELIVERIES_AT_ONCE = 4;

/**
 * Handle one publish job: deliver every rendition that is due, then settle the publication: it
 * converges to published, partially published or failed, or, while some rendition waits for a retry
 * or a lease, stays publishing with one follow-up job scheduled for when the earliest is due. Outcomes of
 * deliveries that end together are committed together (lib/publishing/outcome-batch.ts); the usual settling
 * update is answered, for the job's receipt to commit with it (lib/publishing/settle.ts).
 */
export async function processPublication(db: Database, env: Env, publicationId: string, jobId: string, read?: DueRenditions): Promise<StepsFinish | undefined> {
  const due = read ?? (await dueRenditions(db, publicationId));
  const outcomes = outcomeBatch(db, publicationId, due.length);
  const deliver = async (claim: Claim) => {
    await deliverClaimed(db, env, claim, jobId, outcomes.send);
    outcomes.ended(claim.renditionId);
  };
  // Every lane's first rendition is claimed in one request; a lane that frees claims its next on its own.
  const lanes = due.length === 0 ? [] : await claimRenditions(db, due.slice(0, DELIVERIES_AT_ONCE).map((r) => r.id), jobId);
  let next = lanes.length;
  const lane = async (first: Claim) => {
    await deliver(first);
    while (next < due.length) await deliver((await claimRenditions(db, [due[next++].id], jobId))[0]);
  };
  await Promise.all(lanes.map(lane));
  return settleWith(db, publicationId, outcomes.settleRead());
}

/** The renditions a job delivers: in progress and due, in order (a statement, so a consumer can send it with another). */
export const dueRenditions = (q: Queryable, publicationId: string) =>
  q
    .select({ id: renditions.id })
    .from(renditions)
    .where(and(eq(renditions.publicationId, publicationId), inArray(renditions.status, [...IN_PROGRESS]), or(isNull(renditions.nextAttemptAt), lte(renditions.nextAttemptAt, sql`now()`))))
    .orderBy(renditions.position);

export type DueRenditions = Awaited<ReturnType<typeof dueRenditions>>;
