import { and, eq, exists, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { publications, renditions, renditionSegments } from "../../db/schema";
import type { Tx } from "../db/client";
import { DomainError } from "../errors";
import { runInOrder } from "../events/emit";
import { publicationConvergedStatements } from "../events/subjects";
import type { PublicationRow } from "./load";
import { convergedStatus, RENDITION_ERROR_CLEARED } from "./status";

/** Renditions that wait for a delivery and may be stopped; one `publishing` or `reconciling` is (or was) in flight. */
const WAITING = ["pending", "queued", "retrying"] as const;

/**
 * Cancel a publication (CONTRACT §9), in the caller's transaction with its row locked and its revision checked.
 * `scheduled` becomes `draft` and loses its schedule, so the scheduler never starts it. `publishing`: every
 * rendition still waiting becomes `canceled` and is never sent; one a delivery holds (a live lease), one whose
 * outcome is unknown (`publishing` or `reconciling`: it may be on the platform) and one whose thread is partly
 * posted finish, so nothing is left half sent. When every rendition has then ended, the publication converges
 * here (`draft` when nothing went out); otherwise the delivery path converges it when the last one ends.
 * Returns the publication at its new revision.
 */
export async function cancelPublication(tx: Tx, row: PublicationRow): Promise<PublicationRow> {
  if (row.status === "scheduled") return bump(tx, row, { status: "draft", scheduledAt: null, runAt: null, calendarAt: null });
  if (row.status !== "publishing") {
    throw new DomainError("not-editable", `Only a scheduled or publishing publication can be canceled; this one is ${row.status.replace("_", " ")}.`);
  }
  await tx
    .update(renditions)
    .set({ status: "canceled", ...RENDITION_ERROR_CLEARED, terminalReason: "canceled", nextAttemptAt: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(renditions.publicationId, row.id),
        inArray(renditions.status, [...WAITING]),
        // Row by row this update and a delivery's claim (which takes only a lapsed lease) wait for each other,
        // so a rendition is either claimed and sent, or canceled and never claimed; never both.
        or(isNull(renditions.leaseUntil), lte(renditions.leaseUntil, sql`now()`)),
        sql`not ${exists(
          tx
            .select({ one: sql`1` })
            .from(renditionSegments)
            .where(and(eq(renditionSegments.renditionId, renditions.id), eq(renditionSegments.status, "published"))),
        )}`,
      ),
    );
  const rows = await tx.select({ status: renditions.status }).from(renditions).where(eq(renditions.publicationId, row.id));
  const status = convergedStatus(rows.map((r) => r.status));
  const updated = await bump(tx, row, { status });
  // Converged here (what was sent had ended): its outbound event (lib/events), in this transaction.
  await runInOrder(tx, publicationConvergedStatements(row.workspaceId, row.id, status, false));
  return updated;
}

async function bump(tx: Tx, row: PublicationRow, change: Partial<PublicationRow>): Promise<PublicationRow> {
  const [updated] = await tx
    .update(publications)
    .set({ ...change, revision: row.revision + 1, updatedAt: sql`now()` })
    .where(eq(publications.id, row.id))
    .returning();
  return updated;
}
