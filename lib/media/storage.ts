/**
 * Where an item's bytes live in the media bucket: one object per item, under its workspace, so a
 * workspace's objects can be listed or removed together.
 */
export const objectKey = (workspaceId: string, mediaId: string) => `workspaces/${workspaceId}/media/${mediaId}`;

/** Store the bytes, typed, with the ids they belong to (useful when auditing the bucket by hand). */
export async function putObject(
  bucket: R2Bucket,
  key: string,
  bytes: Uint8Array,
  meta: { mimeType: string; workspaceId: string; mediaId: string },
): Promise<void> {
  await bucket.put(key, bytes, {
    httpMetadata: { contentType: meta.mimeType },
    customMetadata: { workspace_id: meta.workspaceId, media_id: meta.mediaId },
  });
}
