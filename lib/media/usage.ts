import { and, eq, inArray, notInArray } from "drizzle-orm";
import { mediaUsages } from "../../db/schema";
import type { Queryable } from "../db/client";

export type MediaOwnerType = "publication" | "design" | "template";

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
  await tx.delete(mediaUsages).where(ids.length ? and(ofOwner, notInArray(mediaUsages.mediaId, ids)) : ofOwner);
  if (ids.length) {
    await tx
      .insert(mediaUsages)
      .values(ids.map((mediaId) => ({ mediaId, workspaceId: owner.workspaceId, ownerType: owner.ownerType, ownerId: owner.ownerId })))
      .onConflictDoNothing();
  }
}

/** Forget every use by an owner that is being deleted. */
export async function clearMediaUsages(tx: Queryable, ownerType: MediaOwnerType, ownerIds: string[]): Promise<void> {
  if (ownerIds.length === 0) return;
  await tx.delete(mediaUsages).where(and(eq(mediaUsages.ownerType, ownerType), inArray(mediaUsages.ownerId, ownerIds)));
}
