import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users, workspaces } from "./identity";
import { publications } from "./publications";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export type BuildState = "queued" | "running" | "completed" | "failed";

/**
 * SPEC.md 2.6 Publication Build. `input` is frozen at creation (voice snapshot included) so a later edit
 * of an account or a voice does not change what the build meant; `result` is the plan once completed.
 * `url_fetches` and `media_plan` are internal (what the consumer read, which media each destination takes).
 */
export const publicationBuilds = pgTable(
  "publication_builds",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    revision: integer("revision").notNull().default(1),
    state: text("state").$type<BuildState>().notNull().default("queued"),
    phase: text("phase").notNull().default("queued"),
    publicationId: text("publication_id").references(() => publications.id, { onDelete: "set null" }),
    voiceProfileId: text("voice_profile_id"),
    assets: jsonb("assets").$type<{ media_id: string; role: string; may_publish: boolean }[]>().notNull().default([]),
    contextUrls: jsonb("context_urls").$type<string[]>().notNull().default([]),
    input: jsonb("input").$type<Record<string, unknown>>().notNull(),
    result: jsonb("result").$type<Record<string, unknown>>(),
    mediaPlan: jsonb("media_plan").$type<Record<string, string[]>>(),
    model: text("model"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  // GET /publication-builds?workspace_id= pages newest first in (created_at, id) order.
  (t) => [index("publication_builds_workspace_idx").on(t.workspaceId, t.createdAt.desc(), t.id.desc())],
);
