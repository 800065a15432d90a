import type { media } from "../../db/schema";

export type MediaRow = typeof media.$inferSelect;

/** Where the bytes of an item are served (GET /media/{id}/file). */
export const mediaFileUrl = (baseUrl: string, id: string) => `${baseUrl}/media/${id}/file`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * SPEC 2.13 MediaItem of a row (without `$schema`). Fields Herald does not produce (analysis, public
 * URL checks, pixel format, colour space, video posters) are null rather than invented; an image is its
 * own thumbnail.
 */
export function toMediaItem(row: MediaRow, baseUrl: string) {
  const url = mediaFileUrl(baseUrl, row.id);
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    url,
    thumbnail_url: row.mediaType === "image" ? url : null,
    poster_thumbnail_url: null,
    mime_type: row.mimeType,
    original_filename: row.originalFilename,
    alt_text: row.altText,
    tags: row.tags,
    is_favorite: row.isFavorite,
    can_delete: row.usageCount === 0,
    asset_kind: row.assetKind,
    source: row.source,
    parent_media_id: row.parentMediaId,
    design_document_id: row.designDocumentId,
    design_page_id: row.designPageId,
    size: row.size,
    width: row.width,
    height: row.height,
    rotation: row.rotation,
    duration_ms: row.durationMs,
    frame_rate: row.frameRate,
    bit_rate: row.bitRate,
    audio_channels: row.audioChannels,
    audio_codec: row.audioCodec,
    video_codec: row.videoCodec,
    video_profile: row.videoProfile,
    container_format: row.containerFormat,
    pixel_format: row.pixelFormat,
    color_space: row.colorSpace,
    processing_status: row.processingStatus,
    processing_progress: row.processingStatus === "ready" ? 100 : null,
    analysis_status: null,
    analysis_error: null,
    public_url_status: null,
    public_url_error: null,
    public_url_checked_at: null,
    usage_count: row.usageCount,
    last_used_at: iso(row.lastUsedAt),
    retention_class: row.retentionClass,
    trashed_at: iso(row.trashedAt),
    trash_reason: row.trashReason,
    purge_after: iso(row.purgeAfter),
    created_at: row.createdAt.toISOString(),
  };
}
