import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { MAX_TAG_LENGTH, MAX_TAGS, TAG_PATTERN } from "../../lib/media/tags";
import { IdParam, knownValue, OptionalTimestamp, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";

const Int = z.number().int();

/** SPEC.md 2.13 MediaItem: one item of a workspace's media library. */
export const MediaItem = responseObject("MediaItem", {
  id: z.string().openapi({ example: "med_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  url: z.string(),
  thumbnail_url: z.string().nullable(),
  poster_thumbnail_url: z.string().nullable(),
  mime_type: z.string().openapi({ description: "Detected from the bytes" }),
  original_filename: z.string().nullable(),
  alt_text: z.string().nullable(),
  tags: z.array(z.string()).openapi({ description: "Tag ids: trimmed, lower-case names" }),
  is_favorite: z.boolean(),
  can_delete: z.boolean(),
  asset_kind: z.string(),
  source: z.string().openapi({ description: "Provenance, e.g. upload" }),
  parent_media_id: z.string().nullable(),
  design_document_id: z.string().nullable(),
  design_page_id: z.string().nullable(),
  size: Int.openapi({ description: "Bytes" }),
  width: Int.nullable(),
  height: Int.nullable(),
  rotation: Int.nullable(),
  duration_ms: Int.nullable(),
  frame_rate: z.number().nullable(),
  bit_rate: Int.nullable(),
  audio_channels: Int.nullable(),
  audio_codec: z.string().nullable(),
  video_codec: z.string().nullable(),
  video_profile: z.string().nullable(),
  container_format: z.string().nullable(),
  pixel_format: z.string().nullable(),
  color_space: z.string().nullable(),
  processing_status: z.string(),
  processing_progress: Int.nullable().openapi({ description: "Percent" }),
  analysis_status: z.string().nullable(),
  analysis_error: z.string().nullable(),
  public_url_status: Int.nullable(),
  public_url_error: z.string().nullable(),
  public_url_checked_at: OptionalTimestamp,
  usage_count: Int,
  last_used_at: OptionalTimestamp,
  retention_class: knownValue("library", "Lifecycle class"),
  trashed_at: OptionalTimestamp,
  trash_reason: knownValue("manual", "Why the item is in the trash").nullable(),
  purge_after: OptionalTimestamp.openapi({ description: "When a trashed item is deleted for good" }),
  created_at: Timestamp,
});

/** SPEC.md 2.13 ListMediaOutputBody. */
export const ListMediaOutputBody = responseObject("ListMediaOutputBody", {
  media: z.array(MediaItem),
  total: Int.openapi({ description: "Items matching the filters, across all pages" }),
});

/** `{id}` of the /media/{id} operations. */
export const MediaIdParams = z.object({ id: IdParam.openapi({ description: "Media item ID", example: "med_0123456789abcdefghijklmn" }) });

const AltText = z.string().max(1000).openapi({ description: "Text alternative for people who cannot see or hear the item" });
const RetentionClass = z.enum(["library", "temporary"]).openapi({
  description: "`temporary`: an upload for one-off use, purged 7 days after upload unless it is in use or moved to the library",
});

/** POST /media (multipart/form-data). */
export const UploadMediaForm = z
  .object({
    file: z.file().openapi({ type: "string", format: "binary", description: "The image, video or audio file; its type is detected from the bytes" }),
    workspace_id: WorkspaceIdField,
    alt_text: AltText.optional(),
    tags: z
      .string()
      .max(MAX_TAGS * (MAX_TAG_LENGTH + 1))
      .optional()
      .openapi({ description: `Comma-separated tag names (at most ${MAX_TAGS}, each at most ${MAX_TAG_LENGTH} characters); stored trimmed and lower-cased` }),
    retention_class: RetentionClass.optional(),
  })
  .openapi("UploadMediaForm");

const TagName = z
  .string()
  .max(MAX_TAG_LENGTH + 20)
  .regex(TAG_PATTERN, "A tag has no commas or control characters")
  .openapi({ description: "Tag name; stored trimmed and lower-cased, which is its id" });

/** PATCH /media/{id}: the fields given change, the others stay. */
export const UpdateMediaRequest = z
  .object({
    alt_text: AltText.nullable().optional().openapi({ description: "New alt text; null or empty clears it" }),
    tags: z.array(TagName).max(MAX_TAGS).optional().openapi({ description: "Replaces the item's tags" }),
    is_favorite: z.boolean().optional(),
    retention_class: RetentionClass.optional(),
  })
  .openapi("UpdateMediaRequest");
