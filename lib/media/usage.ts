import { and, asc, eq, inArray, notInArray, sql } from "drizzle-orm";
import { media, mediaUsages } from "../../db/schema";
import type { Queryable } from "../db/client";

export type MediaOwnerType = "publication" | "design" | "template" | "video_project";

/**
 * Lock the media rows whose use is about to change, in id order (so two owners changing overlapping
 * items cannot deadlock), and so that the purge, which takes the same lock, sees either all of this
 * change or none of it.
 */
async function lockMedia(tx: Queryable, mediaIds: string[]): Promise<void> {
  if (mediaIds.length === 0) return;
  await tx.select({ id: media.id }).from(media).where(inArray(media.id, mediaIds)).orderBy(asc(media.id)).for("update");
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
      usageCount: sql`(select count(*)::int from ${mediaUsages} where ${mediaUsages.mediaId} = ${media.id})`,
      lastUsedAt: sql`(select max(${mediaUsages.usedAt}) from ${mediaUsages} where ${mediaUsages.mediaId} = ${media.id})`,
    })
    .where(inArray(media.id, mediaIds));
}

/**
 * Make the recorded uses of one owner (a publication, design or template) exactly `mediaIds`.
 * Call it in the transaction that saves the owner. Existing uses keep their `used_at`; new ones are stamped now.
 */
export async function replaceMediaUsages(
  tx: Queryable,
  owner: { workspaceId: string; ownerType: MediaOwnerType; ownerId: string },
  mediaIds: string[],
): Promise<void> {
  const ids = [...new Set(mediaIds)];
  const ofOwner = and(eq(mediaUsages.ownerType, owner.ownerType), eq(mediaUsages.ownerId, owner.ownerId));
  const current = await tx.select({ mediaId: mediaUsages.mediaId }).from(mediaUsages).where(ofOwner);
  const touched = [...new Set([...ids, ...current.map((r) => r.mediaId)])];
  await lockMedia(tx, touched);
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
