import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Which publication, design or template uses which media item. `usage_count` and `last_used_at` of a
 * MediaItem are read from here, and an item in use is not purged silently.
 */
export const mediaUsages = pgTable(
  "media_usages",
  {
    mediaId: text("media_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    ownerType: text("owner_type").$type<"publication" | "design" | "template" | "video_project">().notNull(),
    ownerId: text("owner_id").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.mediaId, t.ownerType, t.ownerId] }), index("media_usages_owner_idx").on(t.ownerType, t.ownerId)],
);
