import { sql } from "drizzle-orm";
import { bigint, boolean, check, doublePrecision, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const MEDIA_TYPES = ["image", "video", "audio"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const RETENTION_CLASSES = ["library", "temporary"] as const;
export type RetentionClass = (typeof RETENTION_CLASSES)[number];

/**
 * The media library (SPEC 2.13, 3.5). The bytes live in object storage (R2) under `object_key`; this row
 * holds what was detected from them. `lifecycle` and `aspect` are generated so that list filters compare
 * plain columns an index covers. `usage_count` / `last_used_at` are kept in step with media_usages by
 * lib/media/usage.ts in the transaction that changes a use, so "used", "unused" and "recently used" are
 * index range scans instead of an aggregate over every item.
 *
 * Which index serves which GET /media parameter (every query pins workspace_id, asset_kind, lifecycle):
 *   sort newest/oldest, date_from/date_to, no filter ........ media_list_created_idx
 *   sort name ............................................... media_list_name_idx
 *   sort size ............................................... media_list_size_idx
 *   sort recently_used, filter used/unused .................. media_list_used_idx
 *   filter favorites ........................................ media_list_favorite_idx (partial)
 *   untagged ................................................ media_list_untagged_idx (partial)
 *   type, aspect (alone or together) ........................ media_list_type_idx (PG 18 skip scan for aspect alone)
 *   source .................................................. media_list_source_idx
 *   min/max width ........................................... media_list_width_idx
 *   min/max height .......................................... media_list_height_idx
 *   tag_id, tag_ids (all-of: tags @> array) ................. media_tags_idx (GIN, btree_gin for workspace_id)
 *   search (ILIKE over file name, alt text, tags) ........... media_search_idx (GIN pg_trgm)
 *   purge of trash / expired temporary uploads .............. media_purge_trash_idx, media_purge_temporary_idx
 */
export const media = pgTable(
  "media",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    objectKey: text("object_key").notNull().unique(),
    mimeType: text("mime_type").notNull(),
    mediaType: text("media_type").$type<MediaType>().notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    originalFilename: text("original_filename"),
    altText: text("alt_text"),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    /** Lower-cased file name, alt text and tags, maintained with them: what `search` matches. */
    searchText: text("search_text").notNull().default(""),
    isFavorite: boolean("is_favorite").notNull().default(false),
    assetKind: text("asset_kind").notNull().default("library"),
    source: text("source").notNull().default("upload"),
    parentMediaId: text("parent_media_id"),
    designDocumentId: text("design_document_id"),
    designPageId: text("design_page_id"),
    width: integer("width"),
    height: integer("height"),
    rotation: integer("rotation"),
    durationMs: integer("duration_ms"),
    frameRate: doublePrecision("frame_rate"),
    bitRate: integer("bit_rate"),
    audioChannels: integer("audio_channels"),
    audioCodec: text("audio_codec"),
    videoCodec: text("video_codec"),
    videoProfile: text("video_profile"),
    containerFormat: text("container_format"),
    pixelFormat: text("pixel_format"),
    colorSpace: text("color_space"),
    processingStatus: text("processing_status").notNull().default("ready"),
    retentionClass: text("retention_class").$type<RetentionClass>().notNull().default("library"),
    /** Temporary uploads only: when the purge may remove it. */
    expiresAt: ts("expires_at"),
    trashedAt: ts("trashed_at"),
    trashReason: text("trash_reason"),
    purgeAfter: ts("purge_after"),
    /** The purge found the item still in use and left it (attention): why, and when it last looked. */
    purgeBlockedReason: text("purge_blocked_reason"),
    purgeBlockedAt: ts("purge_blocked_at"),
    usageCount: integer("usage_count").notNull().default(0),
    lastUsedAt: ts("last_used_at"),
    createdBy: text("created_by"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    lifecycle: text("lifecycle")
      .$type<"library" | "temporary" | "trash">()
      .notNull()
      .generatedAlwaysAs(sql`CASE WHEN trashed_at IS NOT NULL THEN 'trash' ELSE retention_class END`),
    /** Square when the longer side is at most 2 % longer than the shorter (lib/media/classify.ts agrees). */
    aspect: text("aspect")
      .$type<"square" | "portrait" | "landscape">()
      .generatedAlwaysAs(
        sql`CASE WHEN width IS NULL OR height IS NULL OR width <= 0 OR height <= 0 THEN NULL WHEN greatest(width, height) * 50 <= least(width, height) * 51 THEN 'square' WHEN width > height THEN 'landscape' ELSE 'portrait' END`,
      ),
  },
  (t) => {
    const scope = [t.workspaceId, t.assetKind, t.lifecycle] as const;
    return [
      index("media_list_created_idx").on(...scope, t.createdAt, t.id),
      index("media_list_name_idx").on(...scope, sql`lower(${t.originalFilename})`, t.id),
      index("media_list_size_idx").on(...scope, t.size, t.id),
      index("media_list_used_idx").on(...scope, t.lastUsedAt.desc().nullsLast(), t.createdAt.desc(), t.id.desc()),
      index("media_list_favorite_idx")
        .on(...scope, t.createdAt, t.id)
        .where(sql`${t.isFavorite}`),
      index("media_list_untagged_idx")
        .on(...scope, t.createdAt, t.id)
        .where(sql`${t.tags} = '{}'::text[]`),
      index("media_list_type_idx").on(...scope, t.mediaType, t.aspect, t.createdAt, t.id),
      index("media_list_source_idx").on(...scope, t.source, t.createdAt, t.id),
      index("media_list_width_idx").on(...scope, t.width),
      index("media_list_height_idx").on(...scope, t.height),
      // GIN without its pending list (fastupdate), as publications_search_idx: every read scans the whole pending
      // list, and a long one misleads the planner. With 3,000 recent rows waiting over 20,000: tag filters 0.70-0.75
      // ms against 0.33-0.38, the search count a sequential scan at 8.3 ms against 6.6; an insert costs 0.08 ms more.
      index("media_tags_idx").using("gin", t.workspaceId, t.tags).with({ fastupdate: false }),
      index("media_search_idx").using("gin", t.workspaceId, t.searchText.op("gin_trgm_ops")).with({ fastupdate: false }),
      index("media_purge_trash_idx").on(t.purgeAfter).where(sql`${t.trashedAt} IS NOT NULL`),
      index("media_purge_temporary_idx").on(t.expiresAt).where(sql`${t.trashedAt} IS NULL AND ${t.retentionClass} = 'temporary'`),
      check("media_media_type_check", sql`${t.mediaType} in ('image','video','audio')`),
      check("media_retention_class_check", sql`${t.retentionClass} in ('library','temporary')`),
      check("media_size_check", sql`${t.size} >= 0`),
    ];
  },
);

/**
 * Stored bytes whose row the purge has deleted: written in the same transaction as the delete, removed
 * once the object is gone from storage, so a crash between the two never leaves bytes nobody knows of.
 */
export const mediaPurgedObjects = pgTable("media_purged_objects", {
  objectKey: text("object_key").primaryKey(),
  mediaId: text("media_id").notNull(),
  workspaceId: text("workspace_id").notNull(),
  purgedAt: ts("purged_at").notNull().defaultNow(),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("last_error"),
});
