import { bigint, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export type ProviderCostStatus = "reserved" | "committed" | "released";

/**
 * Ledger of paid third-party calls (a language model today): one row per call, in micro-USD, that
 * billing reads for `provider_costs`. A call is reserved before it is made and committed (with the
 * units it used) or released after, so an interrupted call still shows.
 */
export const providerCostEvents = pgTable(
  "provider_cost_events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    operation: text("operation").notNull(),
    units: bigint("units", { mode: "number" }).notNull().default(0),
    costMicrousd: bigint("cost_microusd", { mode: "number" }).notNull().default(0),
    status: text("status").$type<ProviderCostStatus>().notNull(),
    buildId: text("build_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("provider_cost_events_workspace_idx").on(t.workspaceId, t.createdAt),
    // The retention fold walks the oldest events (lib/retention/provider-costs.ts).
    index("provider_cost_events_created_idx").on(t.createdAt),
  ],
);

/**
 * Provider cost events past their retention, folded per workspace, calendar month (UTC), provider, operation
 * and status: billing and cost reports read these with the events, so their sums do not change when events go.
 */
export const providerCostMonthlyTotals = pgTable(
  "provider_cost_monthly_totals",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** The first instant of the month (UTC). */
    month: ts("month").notNull(),
    provider: text("provider").notNull(),
    operation: text("operation").notNull(),
    status: text("status").$type<ProviderCostStatus>().notNull(),
    events: bigint("events", { mode: "number" }).notNull(),
    units: bigint("units", { mode: "number" }).notNull(),
    costMicrousd: bigint("cost_microusd", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.month, t.provider, t.operation, t.status] })],
);
