import { and, asc, eq, inArray, notInArray, sql } from "drizzle-orm";
import { media, mediaUsages } from "../../db/schema";
import type { Queryable } from "../db/client";
import { DomainError } from "../errors";

export type MediaOwnerType = "publication" | "design" | "template" | "video_project";

/**
 * Lock the media rows whose use is about to change, in id order (so two owners changing overlapping
 * items cannot deadlock), and so that the purge, which takes the same lock, sees either all of this
 * change or none of it.
 */
async function lockMedia(tx: Queryable, mediaIds: string[]): Promise<{ id: string; workspaceId: string }[]> {
  if (mediaIds.length === 0) return [];
  return tx.select({ id: media.id, workspaceId: media.workspaceId }).from(media).where(inArray(media.id, mediaIds)).orderBy(asc(media.id)).for("update");
}

/**
 * Recompute `usage_count` and `last_used_at` of these items from media_usages. Runs after the lock, as
 * a statement of its own, so under READ COMMITTED it sees every use committed by whoever held the lock
 * before: the counters always equal what media_usages says.
 */
async function refreshCounters(tx: Queryable, mediaIds: string[]): Promise<void> {
  if (mediaIds.length === 0) return;
  await tx
    .update(media)
    .set({
      // Only uses by the item's own workspace count (a use recorded from elsewhere must never lock it).
      usageCount: sql`(select count(*)::int from ${mediaUsages} where ${mediaUsages.mediaId} = ${media.id} and ${mediaUsages.workspaceId} = ${media.workspaceId})`,
      lastUsedAt: sql`(select max(${mediaUsages.usedAt}) from ${mediaUsages} where ${mediaUsages.mediaId} = ${media.id} and ${mediaUsages.workspaceId} = ${media.workspaceId})`,
    })
    .where(inArray(media.id, mediaIds));
}

/**
 * Make the recorded uses of one owner (a publication, design, template or video project) exactly `mediaIds`.
 * Call it in the transaction that saves the owner. Existing uses keep their `used_at`; new ones are stamped now.
 * Every id must be an item of the owner's workspace: an unknown id and another workspace's id get the same
 * 422 (naming `location`), so a document can neither lock nor reveal another team's media.
 */
export async function replaceMediaUsages(
  tx: Queryable,
  owner: { workspaceId: string; ownerType: MediaOwnerType; ownerId: string },
  mediaIds: string[],
  location = "body.document",
  alsoMentioned: string[] = [], // ids the owner points at without using them (previews, exports): checked, not recorded
): Promise<void> {
  const ids = [...new Set(mediaIds)];
  const ofOwner = and(eq(mediaUsages.ownerType, owner.ownerType), eq(mediaUsages.ownerId, owner.ownerId));
  const current = await tx.select({ mediaId: mediaUsages.mediaId }).from(mediaUsages).where(ofOwner);
  const mentioned = alsoMentioned.filter((id) => !ids.includes(id));
  const touched = [...new Set([...ids, ...mentioned, ...current.map((r) => r.mediaId)])];
  const locked = await lockMedia(tx, touched);
  const own = new Set(locked.filter((r) => r.workspaceId === owner.workspaceId).map((r) => r.id));
  const foreign = [...new Set([...ids, ...mentioned])].filter((id) => !own.has(id));
  if (foreign.length) {
    throw new DomainError("validation-error", `${foreign.length} media item(s) are not in this workspace's library.`, {
      errors: foreign.slice(0, 50).map((value) => ({ location, message: "No such media item in this workspace's library", value })),
    });
  }
  const removed = await tx
    .delete(mediaUsages)
    .where(ids.length ? and(ofOwner, notInArray(mediaUsages.mediaId, ids)) : ofOwner)
    .returning({ mediaId: mediaUsages.mediaId });
  if (ids.length) {
    await tx
      .insert(mediaUsages)
      .values(ids.map((mediaId) => ({ mediaId, workspaceId: owner.workspaceId, ownerType: owner.ownerType, ownerId: owner.ownerId })))
      .onConflictDoNothing();
  }
  await refreshCounters(tx, [...new Set([...touched, ...removed.map((r) => r.mediaId)])]);
}

/** Forget every use by an owner that is being deleted. */
export async function clearMediaUsages(tx: Queryable, ownerType: MediaOwnerType, ownerIds: string[]): Promise<void> {
  if (ownerIds.length === 0) return;
  const ofOwners = and(eq(mediaUsages.ownerType, ownerType), inArray(mediaUsages.ownerId, ownerIds));
  const current = await tx.select({ mediaId: mediaUsages.mediaId }).from(mediaUsages).where(ofOwners);
  const touched = [...new Set(current.map((r) => r.mediaId))];
  await lockMedia(tx, touched);
  const removed = await tx.delete(mediaUsages).where(ofOwners).returning({ mediaId: mediaUsages.mediaId });
  await refreshCounters(tx, [...new Set([...touched, ...removed.map((r) => r.mediaId)])]);
}
