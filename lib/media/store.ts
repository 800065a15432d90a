import { media, type RetentionClass } from "../../db/schema";
import { audit } from "../audit";
import type { Database, Tx } from "../db/client";
import { newId } from "../ids";
import type { DetectedMedia } from "./detect";
import type { MediaRow } from "./item";
import { temporaryExpiry } from "./limits";
import { objectKey, putObject } from "./storage";
import { searchDocument } from "./tags";

export interface NewMedia {
  workspaceId: string;
  actorUserId: string | null;
  bytes: Uint8Array;
  detected: DetectedMedia;
  originalFilename: string | null;
  altText: string | null;
  tags: string[];
  retentionClass?: RetentionClass;
  assetKind?: string;
  source?: string;
  parentMediaId?: string | null;
  designDocumentId?: string | null;
  designPageId?: string | null;
  /** Runs first in the recording transaction (a plan-limit check); throwing stores nothing. */
  guard?: (tx: Tx) => Promise<void>;
}

/**
 * Put the bytes in the bucket, then record the item (and its audit entry) in one transaction. If the
 * row cannot be written the object is removed again, so storage never holds bytes no row points to.
 * Detection happens before this: nothing reaches storage that is not media.
 */
export async function createMedia(db: Database, bucket: R2Bucket, input: NewMedia): Promise<MediaRow> {
  const id = newId("med");
  const key = objectKey(input.workspaceId, id);
  const d = input.detected;
  await putObject(bucket, key, input.bytes, { mimeType: d.mimeType, workspaceId: input.workspaceId, mediaId: id });
  try {
    return await db.transaction(async (tx) => {
      await input.guard?.(tx);
      const retentionClass = input.retentionClass ?? "library";
      const [row] = await tx
        .insert(media)
        .values({
          id,
          workspaceId: input.workspaceId,
          objectKey: key,
          mimeType: d.mimeType,
          mediaType: d.mediaType,
          size: input.bytes.byteLength,
          originalFilename: input.originalFilename,
          altText: input.altText,
          tags: input.tags,
          searchText: searchDocument(input),
          assetKind: input.assetKind ?? "library",
          source: input.source ?? "upload",
          parentMediaId: input.parentMediaId ?? null,
          designDocumentId: input.designDocumentId ?? null,
          designPageId: input.designPageId ?? null,
          width: d.width,
          height: d.height,
          rotation: d.rotation,
          durationMs: d.durationMs,
          frameRate: d.frameRate,
          bitRate: d.bitRate,
          audioChannels: d.audioChannels,
          audioCodec: d.audioCodec,
          videoCodec: d.videoCodec,
          videoProfile: d.videoProfile,
          containerFormat: d.containerFormat,
          retentionClass,
          expiresAt: retentionClass === "temporary" ? temporaryExpiry() : null,
          createdBy: input.actorUserId,
        })
        .returning();
      await audit(tx, { actorUserId: input.actorUserId, workspaceId: input.workspaceId, action: "media.upload", targetType: "media", targetId: id });
      return row;
    });
  } catch (error) {
    await bucket.delete(key).catch(() => {});
    throw error;
  }
}
