import { and, eq, isNull, sql } from "drizzle-orm";
import { outboxJobs, publications, renditions } from "../../db/schema";
import { inOneTransaction } from "../db/batch";
import type { Database, Queryable } from "../db/client";
import { commitFinish, type StepsFinish } from "../jobs/consumer";
import { enqueueJob } from "../jobs/outbox";
import { LEASE_MS } from "./deliver-rendition";
import type { PublishJobPayload } from "./start";
import { convergedStatus, isTerminal } from "./status";

/**
 * Settle a publication after its job's deliveries: it converges to published, partially published or
 * failed, or, while some rendition waits for a retry or a lease, stays publishing with one follow-up job
 * scheduled for when the earliest is due.
 */
export async function settle(db: Database, publicationId: string, read?: SettleRead): Promise<void> {
  await commitFinish(db, await settleWith(db, publicationId, read));
}

/** What settling reads, as statements: a caller may send them with its last writes (`read` above). */
export const settleReads = (q: Queryable, publicationId: string) =>
  [
    q.select({ status: publications.status, updatedAt: publications.updatedAt }).from(publications).where(eq(publications.id, publicationId)),
    q.select({ id: renditions.id, status: renditions.status, terminalReason: renditions.terminalReason }).from(renditions).where(eq(renditions.publicationId, publicationId)).orderBy(renditions.id),
  ] as const;

export type SettleRead = [Awaited<ReturnType<typeof settleReads>[0]>, Awaited<ReturnType<typeof settleReads>[1]>];

/**
 * The usual end, every rendition done and nothing to queue, without an interactive transaction: from what
 * was read (reading it first unless the last delivery's writes brought it), one update that applies only if
 * the publication is still exactly as read (same `updated_at`, still publishing) and so are its renditions'
 * statuses. That update is returned, not sent, so a job can commit it with its receipt (lib/jobs/consumer.ts):
 * `receiptIf` holds once the publication has left publishing, and `otherwise` is the locked path, for a race.
 * Anything else (a follow-up or dead-letter job to queue) takes the locked path here; then, as when there is
 * nothing left to do (settled by another job, or deleted), the answer is undefined.
 */
export async function settleWith(db: Database, publicationId: string, read?: SettleRead): Promise<StepsFinish | undefined> {
  const [[publication], rows] = read ?? (await inOneTransaction(db, (q) => [...settleReads(q, publicationId)]));
  if (!publication || publication.status !== "publishing") return undefined;
  const status = convergedStatus(rows.map((r) => r.status));
  if (status === "publishing" || rows.some((r) => r.status === "failed" && r.terminalReason?.startsWith("gave_up"))) {
    await settleLocked(db, publicationId);
    return undefined;
  }
  const observed = rows.map((r) => r.status);
  return {
    statements: (q) => [
      q
        .update(publications)
        .set({ status, updatedAt: sql`now()` })
        .where(
          and(
            eq(publications.id, publicationId),
            eq(publications.status, "publishing"),
            eq(publications.updatedAt, publication.updatedAt),
            sql`(select coalesce(array_agg(${renditions.status}::text order by ${renditions.id}), '{}') from ${renditions} where ${renditions.publicationId} = ${publicationId}) = array[${sql.join(
              observed.map((o) => sql`${o}`),
              sql`, `,
            )}]::text[]`,
          ),
        ),
    ],
    receiptIf: sql`not exists (select 1 from ${publications} where ${publications.id} = ${publicationId} and ${publications.status} = 'publishing')`,
    otherwise: () => settleLocked(db, publicationId),
  };
}

async function settleLocked(db: Database, publicationId: string): Promise<void> {
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
