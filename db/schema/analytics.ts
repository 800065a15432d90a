import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** One row per `POST /analytics/refresh`; the consumer completes it. */
export const analyticsCollectionRuns = pgTable(
  "analytics_collection_runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
    jobId: text("job_id").notNull().unique(),
    status: text("status").$type<"queued" | "running" | "completed" | "failed">().notNull(),
    accountsQueued: integer("accounts_queued").notNull(),
    accountsCollected: integer("accounts_collected").notNull().default(0),
    requestedBy: text("requested_by").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [index("analytics_runs_workspace_idx").on(t.workspaceId, t.createdAt)],
);
