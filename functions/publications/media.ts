import { z } from "@hono/zod-openapi";
import { JsonMap, OptionalTimestamp } from "../../lib/schemas/common";

/** SPEC.md 2.5 PublicationMedia: a media item as attached to a publication, segment or rendition. */
export const PublicationMedia = z
  .object({
    id: z.string(),
    role: z.string().openapi({ description: "What the media is for in this post, e.g. attachment or cover" }),
    display_order: z.number().int(),
    url: z.string(),
    thumbnail_url: z.string().nullable(),
    poster_thumbnail_url: z.string().nullable(),
    thumbnail_timestamp_ms: z.number().int().nullable(),
    mime_type: z.string(),
    dominant_type: z.string().openapi({ description: "image, video or audio" }),
    original_filename: z.string().nullable(),
    alt_text: z.string().nullable(),
    aspect_ratio: z.string().nullable().openapi({ example: "16:9" }),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    size: z.number().int().openapi({ description: "Bytes" }),
    duration_ms: z.number().int().nullable(),
    frame_rate: z.number().nullable(),
    analysis_status: z.string().nullable(),
    analysis_error: z.string().nullable(),
    public_url_ready: z.boolean().openapi({ description: "Whether platforms can fetch `url`" }),
    public_url_status: z.number().int().nullable().openapi({ description: "HTTP status of the last public URL check" }),
    public_url_error: z.string().nullable(),
    public_url_checked_at: OptionalTimestamp,
    settings: JsonMap,
  })
  .openapi("PublicationMedia");
