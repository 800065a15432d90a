import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * A video project. The head document lives on the row, so reading or extending head never touches
 * history; every mutation locks this row (SELECT … FOR UPDATE), which serialises a project's batches.
 */
export const videoProjects = pgTable(
  "video_projects",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    document: jsonb("document").notNull(),
    headRevision: integer("head_revision").notNull().default(1),
    /** SPEC.md 2.4 lists only `pending`: nothing renders or syncs a project yet (see the response schema). */
    syncStatus: text("sync_status").notNull().default("pending"),
    attentionReason: text("attention_reason"),
    previewObjectKey: text("preview_object_key"),
    retentionExpiresAt: ts("retention_expires_at"),
    trashedAt: ts("trashed_at"),
    /** Conflict branches are named conflict-1, conflict-2, … per project. */
    nextConflictNumber: integer("next_conflict_number").notNull().default(1),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  // Workspace-scoped lookups and the workspace delete cascade.
  (t) => [index("video_projects_workspace_idx").on(t.workspaceId, t.createdAt)],
);

/**
 * One row per revision: the operations and their inverse (to inspect a revision, undo it, or rebuild an
 * older document), and every SNAPSHOT_EVERY-th revision a full copy of the document (lib/video/rebase.ts).
 * Copying the document into every revision would make history grow with document size × revisions.
 */
export const videoProjectRevisions = pgTable(
  "video_project_revisions",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => videoProjects.id, { onDelete: "cascade" }),
    revision: integer("revision").notNull(),
    /** `create`, `applied`, `rebased`, or `branch` (a conflict branch applied on resolution). */
    kind: text("kind").$type<"create" | "applied" | "rebased" | "branch">().notNull(),
    mutationId: text("mutation_id"),
    baseRevision: integer("base_revision"),
    operations: jsonb("operations").notNull(),
    inverse: jsonb("inverse").notNull(),
    snapshot: jsonb("snapshot"),
    createdBy: text("created_by"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.revision] })],
);

/**
 * What each revision touched, one row per (revision, target), with the touches in stored form
 * (`w/style/color`, `w`, `r`: lib/video/footprint.ts). The key (project_id, target, revision) answers "which
 * revisions after the base touched these targets" with one index range per target, so an overlap check
 * costs the same however long the history is.
 */
export const videoRevisionTouches = pgTable(
  "video_revision_touches",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => videoProjects.id, { onDelete: "cascade" }),
    target: text("target").notNull(),
    revision: integer("revision").notNull(),
    touches: text("touches").array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.target, t.revision] })],
);

/** Each mutation_id seen per project, with its first result: a repeat answers `duplicate`. */
export const videoMutations = pgTable(
  "video_mutations",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => videoProjects.id, { onDelete: "cascade" }),
    mutationId: text("mutation_id").notNull(),
    outcome: text("outcome").$type<"applied" | "rebased" | "conflict">().notNull(),
    revision: integer("revision").notNull(),
    conflictId: text("conflict_id"),
    overlapTargets: text("overlap_targets").array().notNull().default(sql`'{}'::text[]`),
    createdBy: text("created_by"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.mutationId] })],
);

/** A named conflict branch holding a stale batch that overlapped later changes. */
export const videoConflicts = pgTable(
  "video_conflicts",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => videoProjects.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    number: integer("number").notNull(),
    name: text("name").notNull(),
    mutationId: text("mutation_id").notNull(),
    baseRevision: integer("base_revision").notNull(),
    /** Head when the branch was made. */
    headRevision: integer("head_revision").notNull(),
    operations: jsonb("operations").notNull(),
    overlapTargets: text("overlap_targets").array().notNull(),
    state: text("state").$type<"open" | "resolved">().notNull().default("open"),
    resolution: text("resolution").$type<"keep_head" | "apply_branch">(),
    resolvedRevision: integer("resolved_revision"),
    createdBy: text("created_by"),
    createdAt: ts("created_at").notNull().defaultNow(),
    resolvedBy: text("resolved_by"),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [
    uniqueIndex("video_conflicts_project_name_key").on(t.projectId, t.name),
    // GET /video-projects/{id}/conflicts: open first (state 'open' < 'resolved'), then by number.
    index("video_conflicts_listing_idx").on(t.projectId, t.state, t.number),
    check("video_conflicts_state_check", sql`${t.state} in ('open','resolved')`),
  ],
);
