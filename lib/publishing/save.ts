import { and, asc, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import { publicationSegments, renditions, renditionSegments, socialAccounts } from "../../db/schema";
import { PLATFORMS, type Platform } from "../../db/schema/accounts";
import type { Tx } from "../db/client";
import { ApiError, type FieldError } from "../http/errors";
import { newId } from "../ids";
import { assertPublishedUntouched, segmentsToWrite, type ExistingRendition } from "./edit-rules";
import type { RenditionSegmentRow } from "./load";
import { segmentLimit, type SegmentLimit } from "./limits";
import { loadMedia } from "./media";
import { mediaProblems } from "./media-rules";
import { planRenditions, type DestinationInput, type PlannedRendition } from "./plan";
import { RENDITION_ERROR_CLEARED } from "./status";

export interface PublicationContent {
  title: string | null;
  sourceText: string;
  destinations: DestinationInput[];
}

/** The workspace's active accounts among those named, with each one's segment limit. */
async function destinationAccounts(tx: Tx, workspaceId: string, ids: string[]) {
  const map = new Map<string, { platform: Platform; limit: SegmentLimit }>();
  if (ids.length === 0) return map;
  const rows = await tx
    .select({ id: socialAccounts.id, platform: socialAccounts.platform, textLimit: socialAccounts.textLimit })
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), inArray(socialAccounts.id, ids), eq(socialAccounts.isActive, true), isNull(socialAccounts.disconnectedAt)));
  for (const row of rows) map.set(row.id, { platform: row.platform, limit: segmentLimit(row.platform, row.textLimit) });
  return map;
}

/** Plan the renditions or answer 422 naming each offending field. */
export async function planOrReject(tx: Tx, workspaceId: string, content: PublicationContent): Promise<PlannedRendition[]> {
  const accounts = await destinationAccounts(tx, workspaceId, content.destinations.map((d) => d.social_account_id));
  const { plans, problems } = planRenditions(content, accounts);
  if (problems.length) {
    const errors: FieldError[] = problems.map((p) => ({
      location: p.field === "source_text" ? "body.source_text" : `body.destinations[${p.index}].${p.field}`,
      message: p.message,
    }));
    throw new ApiError("validation-error", { detail: errors.map((e) => `${e.location}: ${e.message}`).join("; "), errors });
  }
  return plans;
}

/**
 * 422 naming `body.media_ids` when the attached media (already checked to be in the library) can never
 * go out on one post of a destination platform: too many, a kind or size the platform refuses.
 */
export async function assertMediaFits(tx: Tx, mediaIds: string[], platformNames: readonly string[]): Promise<void> {
  // `publications.platforms` is text[]: only the platforms Herald knows have rules.
  const platforms = platformNames.filter((p): p is Platform => (PLATFORMS as readonly string[]).includes(p));
  if (mediaIds.length === 0 || platforms.length === 0) return;
  const rows = await loadMedia(tx, mediaIds);
  const facts = mediaIds.flatMap((id) => {
    const m = rows.get(id);
    return m ? [{ mediaType: m.mediaType, mimeType: m.mimeType, size: m.size }] : [];
  });
  const problems = mediaProblems(platforms, facts);
  if (problems.length) {
    const errors: FieldError[] = problems.map((p) => ({ location: `body.${p.field}`, message: p.message }));
    throw new ApiError("validation-error", { detail: errors.map((e) => `${e.location}: ${e.message}`).join("; "), errors });
  }
}

/**
 * Make the publication's source segment and renditions match `plans`, in the caller's transaction. Nothing
 * that went out is lost or sent twice (CONTRACT §9): a rendition for an account that stays keeps its id, its
 * delivery key (webhook-id, record keys, Idempotency-Keys) and its attempts; a published rendition must stay
 * as it is (409 not-editable otherwise); of any other, only segments not yet posted are replaced, and it waits
 * to be published again (`pending`, the last error cleared).
 */
export async function writeRenditions(tx: Tx, publication: { id: string; workspaceId: string; title: string | null; sourceText: string }, plans: PlannedRendition[]): Promise<void> {
  const existing = await existingRenditions(tx, publication.id);
  assertPublishedUntouched(existing, plans);
  const sourceSegmentId = await writeSourceSegment(tx, publication);
  const byAccount = new Map(existing.map((e) => [e.rendition.socialAccountId, e]));
  const removed = existing.filter((e) => !plans.some((p) => p.socialAccountId === e.rendition.socialAccountId)).map((e) => e.rendition.id);
  if (removed.length) await tx.delete(renditions).where(inArray(renditions.id, removed));

  const replanned: { renditionId: string; plan: PlannedRendition; previous: RenditionSegmentRow[] }[] = [];
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
      replanned.push({ renditionId: previous.rendition.id, plan, previous: previous.segments });
    } else {
      const id = newId("ren");
      added.push({ id, publicationId: publication.id, workspaceId: publication.workspaceId, socialAccountId: plan.socialAccountId, ...content, deliveryKey: newId("dlv") });
      replanned.push({ renditionId: id, plan, previous: [] });
    }
  }
  const kept = replanned.filter((r) => r.previous.length > 0).map((r) => r.renditionId);
  // Posted segments stay, with their external ids: they are the record that those posts went out.
  if (kept.length) await tx.delete(renditionSegments).where(and(inArray(renditionSegments.renditionId, kept), ne(renditionSegments.status, "published")));
  if (added.length) await tx.insert(renditions).values(added);
  const segmentRows = replanned.flatMap(({ renditionId, plan, previous }) =>
    segmentsToWrite(previous, plan.segments).map(({ position, segment }) => ({
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
async function writeSourceSegment(tx: Tx, publication: { id: string; title: string | null; sourceText: string }): Promise<string> {
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

export const platformsOf = (plans: PlannedRendition[]) => [...new Set(plans.map((p) => p.platform))];
