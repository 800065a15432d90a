import { and, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { outboxJobs, publications, renditions } from "../../db/schema";
import type { RenditionStatus } from "../../db/schema/publications";
import type { BatchItem, NamedResults } from "../db/batch";
import type { Database, Queryable } from "../db/client";
import { runInOrder } from "../events/emit";
import { publicationConvergedStatements } from "../events/subjects";
import { outboxRow } from "../jobs/outbox";
import { convergedStatus } from "../publishing/status";
import { CLAIMABLE } from "./rules";

/**
 * Settling a publication once its job's deliveries have run (./store.ts holds what each delivery writes): it
 * converges when every rendition is terminal, or waits, with one follow-up job, for the earliest one still due.
 */

/** What settling reads, as statements a caller may send with its last writes. */
export const settleReads = (db: Queryable, publicationId: string) => ({
  publication: db
    .select({ status: publications.status, updatedAt: publications.updatedAt, workspaceId: publications.workspaceId })
    .from(publications)
    .where(eq(publications.id, publicationId)),
  renditions: db
    .select({ id: renditions.id, status: renditions.status, terminalReason: renditions.terminalReason })
    .from(renditions)
    .where(eq(renditions.publicationId, publicationId))
    .orderBy(renditions.id),
});

/** Given up after every retry: also recorded in the dead-letter queue when its publication settles, for operators. */
const gaveUp = (r: { status: RenditionStatus; terminalReason: string | null }) => r.status === "failed" && (r.terminalReason?.startsWith("gave_up") ?? false);
export type SettleRead = NamedResults<ReturnType<typeof settleReads>>;

/**
 * The usual end, every rendition terminal, without an interactive transaction: one update that applies only if
 * the publication and its renditions' statuses are still exactly as read. `null` when that is not the case here
 * (some rendition still in flight, or the publication is not publishing): then `settleLocked`.
 */
export function convergeIfUnchanged(
  publicationId: string,
  { publication: [publication], renditions: rows }: SettleRead,
): { update: (db: Queryable) => BatchItem; events: SQL[]; settled: SQL } | null {
  if (publication?.status !== "publishing") return null;
  const status = convergedStatus(rows.map((r) => r.status));
  if (status === "publishing" || rows.some(gaveUp)) return null;
  const observed = rows.map((r) => sql`${r.status}`);
  return {
    update: (db) =>
      db
        .update(publications)
        .set({ status, revision: status === "draft" ? sql`${publications.revision} + 1` : publications.revision, updatedAt: sql`now()` })
        .where(
          and(
            eq(publications.id, publicationId),
            eq(publications.status, "publishing"),
            eq(publications.updatedAt, publication.updatedAt),
            sql`(select coalesce(array_agg(${renditions.status}::text order by ${renditions.id}), '{}') from ${renditions} where ${renditions.publicationId} = ${publicationId}) = array[${sql.join(observed, sql`, `)}]::text[]`,
          ),
        ),
    // Its outbound event (lib/events), sent after the update in the same batch: written only if the update applied.
    events: publicationConvergedStatements(publication.workspaceId, publicationId, status, true),
    settled: sql`not exists (select 1 from ${publications} where ${publications.id} = ${publicationId} and ${publications.status} = 'publishing')`,
  };
}

/**
 * Settle under the publication's lock: converge when every rendition is terminal; otherwise, unless a job is
 * already waiting for it, queue one follow-up for when the earliest rendition is due (a retry, or a lease that
 * lapses), by the database's clock.
 */
export async function settleLocked(db: Database, publicationId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [publication] = await tx.select().from(publications).where(eq(publications.id, publicationId)).for("update");
    if (publication?.status !== "publishing") return; // deleted, or settled by another job
    const rows = await tx
      .select({ id: renditions.id, status: renditions.status, terminalReason: renditions.terminalReason, errorCode: renditions.errorCode })
      .from(renditions)
      .where(eq(renditions.publicationId, publicationId));
    const status = convergedStatus(rows.map((r) => r.status));
    if (status !== "publishing") {
      await tx
        .update(publications)
        .set({ status, revision: status === "draft" ? sql`${publications.revision} + 1` : publications.revision, updatedAt: sql`now()` })
        .where(eq(publications.id, publicationId));
      // Its outbound event (lib/events), in this transaction.
      await runInOrder(tx, publicationConvergedStatements(publication.workspaceId, publicationId, status, false));
      const dead = rows
        .filter(gaveUp)
        .map((r) =>
          outboxRow(
            "publication.publish",
            publication.workspaceId,
            { publication_id: publicationId, rendition_id: r.id, error_code: r.errorCode, terminal_reason: r.terminalReason },
            { deadLetter: true },
          ),
        );
      if (dead.length > 0) await tx.insert(outboxJobs).values(dead);
      return;
    }
    const [waiting] = await tx
      .select({ id: outboxJobs.id })
      .from(outboxJobs)
      .where(
        and(
          isNull(outboxJobs.sentAt),
          eq(outboxJobs.kind, "publication.publish"),
          eq(outboxJobs.deadLetter, false),
          sql`${outboxJobs.payload}->>'publication_id' = ${publicationId}`,
        ),
      )
      .limit(1);
    if (waiting) return;
    const earliest = sql`(select min(greatest(coalesce(${renditions.nextAttemptAt}, now()), coalesce(${renditions.leaseUntil}, now()))) from ${renditions}
      where ${renditions.publicationId} = ${publicationId} and ${inArray(renditions.status, CLAIMABLE)})`;
    await tx
      .insert(outboxJobs)
      .values({ ...outboxRow("publication.publish", publication.workspaceId, { publication_id: publicationId }), nextAttemptAt: earliest });
  });
}
