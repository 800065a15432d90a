import { jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { renditions } from "./publications";

/**
 * Where a rendition's chunked video upload stands on its platform (lib/providers/chunked-upload.ts): the
 * platform's upload session, the last confirmed byte offset and, once uploaded, the platform's id while it
 * processes. Written with the delivery's lease renewed, fenced by its attempt (lib/delivery/upload-checkpoints.ts),
 * so an attempt after a crash resumes from the last confirmed chunk. One row per rendition and media item.
 */
export const uploadCheckpoints = pgTable(
  "upload_checkpoints",
  {
    renditionId: text("rendition_id")
      .notNull()
      .references(() => renditions.id, { onDelete: "cascade" }),
    /** Which media item of the rendition (the adapter's key, e.g. `video-0`). */
    mediaKey: text("media_key").notNull(),
    /** lib/providers/types.ts UploadCheckpoint. */
    checkpoint: jsonb("checkpoint").$type<Record<string, unknown>>().notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.renditionId, t.mediaKey] })],
);
