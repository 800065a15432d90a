import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * A design's or template's document as db/ knows it: a JSON object carrying its format version. Its whole
 * shape is the model in lib/image-editor/document.ts, which db/ does not import (it sits below lib/); a
 * document read back becomes that model's value through `storedImageDocument` there.
 */
export interface StoredImageDocument {
  schema_version: number;
}

/** An image-editor design. Its documents live in design_revisions; `revision` names the head. */
export const designs = pgTable(
  "designs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    revision: integer("revision").notNull().default(1),
    coverPreviewMediaId: text("cover_preview_media_id"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("designs_workspace_idx").on(t.workspaceId, t.createdAt, t.id)],
);

/**
 * Every revision of a design, each holding its whole document. Rows are only ever inserted: a change, and a
 * restore, add a new revision; none is rewritten.
 */
export const designRevisions = pgTable(
  "design_revisions",
  {
    id: text("id").primaryKey(),
    designId: text("design_id")
      .notNull()
      .references(() => designs.id, { onDelete: "cascade" }),
    revision: integer("revision").notNull(),
    document: jsonb("document").$type<StoredImageDocument>().notNull(),
    /** Set when this revision was made by restoring an earlier one. */
    restoredFromId: text("restored_from_id"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  // Head lookups and the revision listing (newest first) both use this index.
  (t) => [uniqueIndex("design_revisions_design_revision_key").on(t.designId, t.revision)],
);

/** Workspace templates. Built-in templates are code (lib/image-editor/built-in-templates.ts), not rows. */
export const imageTemplates = pgTable(
  "image_templates",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    category: text("category").notNull(),
    presetKey: text("preset_key"),
    previewMediaId: text("preview_media_id"),
    document: jsonb("document").$type<StoredImageDocument>().notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  // GET /image-editor/templates?workspace_id= lists in (created_at, id) order.
  (t) => [index("image_templates_workspace_idx").on(t.workspaceId, t.createdAt, t.id)],
);
