import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import { publicationSegments, renditions, renditionSegments } from "../../db/schema";
import type { Tx } from "../db/client";
import { newId } from "../ids";
import { assertPublishedUntouched, segmentsToWrite, type ExistingRendition } from "./edit-rules";
import type { PlannedRendition } from "./plan";
import { RENDITION_ERROR_CLEARED } from "./status";

interface PublicationContent {
  id: string;
  workspaceId: string;
  title: string | null;
  sourceText: string;
}

/** A new publication's source segment and renditions, each with a delivery key of its own. */
export async function writeRenditions(tx: Tx, publication: PublicationContent, plans: PlannedRendition[]): Promise<void> {
  const sourceSegmentId = newId("pseg");
  await tx
    .insert(publicationSegments)
    .values({ id: sourceSegmentId, publicationId: publication.id, position: 0, title: publication.title, body: publication.sourceText });
  await applyPlans(tx, publication, plans, [], sourceSegmentId);
}

/**
 * An edited publication's source segment and renditions made to match `plans`, in the caller's transaction.
 * Nothing that went out is lost or sent twice (CONTRACT §9): a rendition for an account that stays keeps its
 * id, its delivery key (webhook-id, record keys, Idempotency-Keys) and its attempts; a published rendition must
 * stay as it is (409 not-editable otherwise, before anything is written); of any other, only segments not yet
 * posted are replaced, and it waits to be published again (`pending`, the last error cleared).
 */
export async function rewriteRenditions(tx: Tx, publication: PublicationContent, plans: PlannedRendition[]): Promise<void> {
  const existing = await existingRenditions(tx, publication.id);
  assertPublishedUntouched(existing, plans);
  const removed = existing.filter((e) => !plans.some((p) => p.socialAccountId === e.rendition.socialAccountId)).map((e) => e.rendition.id);
  if (removed.length) await tx.delete(renditions).where(inArray(renditions.id, removed));
  await applyPlans(tx, publication, plans, existing, await writeSourceSegment(tx, publication));
}

async function applyPlans(
  tx: Tx,
  publication: PublicationContent,
  plans: PlannedRendition[],
  existing: ExistingRendition[],
  sourceSegmentId: string,
): Promise<void> {
  const byAccount = new Map(existing.map((e) => [e.rendition.socialAccountId, e]));
  const replanned: { renditionId: string; plan: PlannedRendition; previous?: ExistingRendition }[] = [];
  const added: (typeof renditions.$inferInsert)[] = [];
  for (const [position, plan] of plans.entries()) {
    const previous = byAccount.get(plan.socialAccountId);
    if (previous?.rendition.status === "published") {
      if (previous.rendition.position !== position) await tx.update(renditions).set({ position }).where(eq(renditions.id, previous.rendition.id));
      continue;
    }
    const content = { platform: plan.platform, position, title: plan.title, body: plan.body, formatLocked: plan.formatLocked };
    if (previous) {
      await tx
        .update(renditions)
        .set({ ...content, status: "pending", ...RENDITION_ERROR_CLEARED, terminalReason: null, nextAttemptAt: null, updatedAt: sql`now()` })
        .where(eq(renditions.id, previous.rendition.id));
      replanned.push({ renditionId: previous.rendition.id, plan, previous });
    } else {
      const id = newId("ren");
      added.push({
        id,
        publicationId: publication.id,
        workspaceId: publication.workspaceId,
        socialAccountId: plan.socialAccountId,
        ...content,
        deliveryKey: newId("dlv"),
      });
      replanned.push({ renditionId: id, plan });
    }
  }
  const kept = replanned.flatMap((r) => (r.previous ? [r.renditionId] : []));
  // Posted segments stay, with their external ids: they are the record that those posts went out.
  if (kept.length) await tx.delete(renditionSegments).where(and(inArray(renditionSegments.renditionId, kept), ne(renditionSegments.status, "published")));
  if (added.length) await tx.insert(renditions).values(added);
  const segmentRows = replanned.flatMap(({ renditionId, plan, previous }) =>
    segmentsToWrite(previous?.segments ?? [], plan.segments).map(({ position, segment }) => ({
      id: newId("rseg"),
      renditionId,
      publicationSegmentId: segment.fromSource ? sourceSegmentId : null,
      position,
      title: segment.title,
      body: segment.body,
      url: segment.url,
    })),
  );
  if (segmentRows.length) await tx.insert(renditionSegments).values(segmentRows);
}

/** The publication's renditions with their segments, as they stand. */
async function existingRenditions(tx: Tx, publicationId: string): Promise<ExistingRendition[]> {
  const [rows, segments] = await Promise.all([
    tx.select().from(renditions).where(eq(renditions.publicationId, publicationId)),
    tx
      .select({ segment: renditionSegments })
      .from(renditionSegments)
      .innerJoin(renditions, eq(renditions.id, renditionSegments.renditionId))
      .where(eq(renditions.publicationId, publicationId))
      .orderBy(asc(renditionSegments.position))
      .then((found) => found.map((f) => f.segment)),
  ]);
  return rows.map((rendition) => ({ rendition, segments: segments.filter((s) => s.renditionId === rendition.id) }));
}

/** The source segment, changed in place so that the segments derived from it keep pointing at it. */
async function writeSourceSegment(tx: Tx, publication: PublicationContent): Promise<string> {
  const [kept] = await tx
    .update(publicationSegments)
    .set({ title: publication.title, body: publication.sourceText })
    .where(and(eq(publicationSegments.publicationId, publication.id), eq(publicationSegments.position, 0)))
    .returning({ id: publicationSegments.id });
  if (kept) return kept.id;
  const id = newId("pseg");
  await tx.insert(publicationSegments).values({ id, publicationId: publication.id, position: 0, title: publication.title, body: publication.sourceText });
  return id;
}
