import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { outboxJobs, publications, renditions } from "../../db/schema";
import type { Database } from "../db/client";
import type { Env } from "../env";
import { enqueueJob } from "../jobs/outbox";
import { deliverRendition, LEASE_MS } from "./deliver-rendition";
import type { PublishJobPayload } from "./start";
import { convergedStatus, isTerminal } from "./status";

const IN_PROGRESS = ["queued", "retrying", "reconciling", "publishing"] as const;
/**
 * Renditions go to different destinations and each is claimed under its own lease, so they are delivered
 * side by side, a few at a time (within the per-request database pool of five connections).
 */
const DELIVERIES_AT_ONCE = 4;

/**
 * Handle one publish job: deliver every rendition that is due, then settle the publication: it
 * converges to published, partially published or failed, or, while some rendition waits for a retry
 * or a lease, stays publishing with one follow-up job scheduled for when the earliest is due.
 */
export async function processPublication(db: Database, env: Env, publicationId: string, jobId: string): Promise<void> {
  const due = await db
    .select({ id: renditions.id })
    .from(renditions)
    .where(and(eq(renditions.publicationId, publicationId), inArray(renditions.status, [...IN_PROGRESS]), or(isNull(renditions.nextAttemptAt), lte(renditions.nextAttemptAt, sql`now()`))))
    .orderBy(renditions.position);
  let next = 0;
  const lane = async () => {
    while (next < due.length) await deliverRendition(db, env, due[next++].id, jobId);
  };
  await Promise.all(Array.from({ length: Math.min(DELIVERIES_AT_ONCE, due.length) }, lane));
  await settle(db, publicationId);
}

async function settle(db: Database, publicationId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [publication] = await tx.select().from(publications).where(eq(publications.id, publicationId)).for("update");
    if (!publication || publication.status !== "publishing") return; // deleted, or settled by another job
    const rows = await tx.select().from(renditions).where(eq(renditions.publicationId, publicationId));
    const status = convergedStatus(rows.map((r) => r.status));
    if (status === "publishing") {
      const pending = await tx
        .select({ id: outboxJobs.id })
        .from(outboxJobs)
        .where(and(isNull(outboxJobs.sentAt), eq(outboxJobs.kind, "publication.publish"), eq(outboxJobs.deadLetter, false), sql`${outboxJobs.payload}->>'publication_id' = ${publicationId}`))
        .limit(1);
      if (pending.length === 0) {
        const waits = rows.filter((r) => !isTerminal(r.status)).map((r) => Math.max(r.nextAttemptAt?.getTime() ?? 0, r.leaseUntil?.getTime() ?? 0) || Date.now() + LEASE_MS);
        await enqueueJob(tx, "publication.publish", publication.workspaceId, { publication_id: publicationId } satisfies PublishJobPayload, { notBefore: new Date(Math.min(...waits)) });
      }
      return;
    }
    await tx.update(publications).set({ status, updatedAt: sql`now()` }).where(eq(publications.id, publicationId));
    // What was given up after every retry is also recorded in the dead-letter queue, for operators.
    for (const r of rows.filter((r) => r.status === "failed" && r.terminalReason?.startsWith("gave_up"))) {
      await enqueueJob(tx, "publication.publish", publication.workspaceId, { publication_id: publicationId, rendition_id: r.id, error_code: r.errorCode, terminal_reason: r.terminalReason }, { deadLetter: true });
    }
  });
}

