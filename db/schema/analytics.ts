import { sql } from "drizzle-orm";
import { bigint, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { socialAccounts } from "./accounts";
import { workspaces } from "./identity";
import { publications, renditions } from "./publications";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** One row per `POST /analytics/refresh`; each account's job counts itself in and the last completes it. */
export const analyticsCollectionRuns = pgTable(
  "analytics_collection_runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** The run's first job (one per account; a run for no account has one job that only completes it). */
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

export type AnalyticsContentSource = "native" | "external";

/**
 * One post of a connected account whose measurements are stored: `native` ones were collected from the
 * provider (published by Herald or found on the account), `external` ones imported (CONTRACT §5).
 */
export const analyticsContentItems = pgTable(
  "analytics_content_items",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    source: text("source").$type<AnalyticsContentSource>().notNull(),
    /** The provider's id for the post (status id, at-uri) or the importer's id. */
    externalId: text("external_id").notNull(),
    renditionId: text("rendition_id").references(() => renditions.id, { onDelete: "set null" }),
    publicationId: text("publication_id").references(() => publications.id, { onDelete: "set null" }),
    publishedAt: ts("published_at").notNull(),
    title: text("title"),
    excerpt: text("excerpt"),
    externalUrl: text("external_url"),
    /**
     * Roll-up of the latest measurements (likes + reposts + replies, and views), kept in step by every
     * writer so the overview sorts and pages without aggregating all measurements per request.
     */
    engagement: bigint("engagement", { mode: "number" }).notNull().default(0),
    views: bigint("views", { mode: "number" }),
    /** Latest available value per metric, e.g. `{"likes": 3, "views": 40}` (same roll-up). */
    latestMetrics: jsonb("latest_metrics").$type<Record<string, number>>().notNull().default({}),
    /** Newest measurement's collected_at. */
    metricsCollectedAt: ts("metrics_collected_at"),
    /** When the roll-up last changed: an overview page snapshot taken earlier recomputes this item as of then. */
    rollupAt: ts("rollup_at").notNull().defaultNow(),
    lastSyncedAt: ts("last_synced_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("analytics_content_items_account_external_key").on(t.accountId, t.externalId),
    // Overview: the workspace's items published within the range, newest first or by engagement/views.
    index("analytics_content_items_workspace_published_idx").on(t.workspaceId, t.publishedAt, t.id),
    index("analytics_content_items_publication_idx").on(t.publicationId),
    index("analytics_content_items_rendition_idx").on(t.renditionId),
    check("analytics_content_items_source_check", sql`${t.source} in ('native','external')`),
  ],
);

/**
 * A timestamped value of one metric, with its MetricMetadata (SPEC 2.7). `content_item_id` null: an
 * account-level metric (followers). A metric the provider cannot give is stored `unavailable` with a reason
 * and a null value, never as zero.
 */
export const analyticsMeasurements = pgTable(
  "analytics_measurements",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    contentItemId: text("content_item_id").references(() => analyticsContentItems.id, { onDelete: "cascade" }),
    metric: text("metric").notNull(),
    value: bigint("value", { mode: "number" }),
    availability: text("availability").$type<"available" | "unavailable">().notNull().default("available"),
    unavailableReason: text("unavailable_reason"),
    collectedAt: ts("collected_at").notNull(),
    aggregation: text("aggregation").notNull().default("current_snapshot"),
    periodStart: ts("period_start"),
    periodEnd: ts("period_end"),
    unit: text("unit").notNull().default("count"),
    /** Where the value came from: `mastodon_api`, `bluesky_pds`, `bluesky_appview`, `import`. */
    source: text("source").notNull(),
    scale: doublePrecision("scale").notNull().default(1),
  },
  (t) => [
    // Latest measurement per (content item, metric): index-only descent (repost automation, overview).
    index("analytics_measurements_item_metric_idx").on(t.contentItemId, t.metric, t.collectedAt),
    // Account-level series (followers by day) and the overview's time ranges.
    index("analytics_measurements_account_metric_idx").on(t.accountId, t.metric, t.collectedAt).where(sql`${t.contentItemId} is null`),
    index("analytics_measurements_workspace_collected_idx").on(t.workspaceId, t.collectedAt),
    // The retention sweep walks measurements in time order from its watermark (lib/retention/measurements.ts).
    index("analytics_measurements_collected_idx").on(t.collectedAt, t.id),
    check("analytics_measurements_availability_check", sql`${t.availability} in ('available','unavailable')`),
    check("analytics_measurements_value_check", sql`(${t.availability} = 'available') = (${t.value} is not null)`),
  ],
);

export type CoverageStatus = "pending" | "backfilling" | "complete" | "failed" | "unsupported";

/** How far collection for one account has got (SPEC 2.7 Coverage), and when it may run again. */
export const analyticsCoverage = pgTable(
  "analytics_coverage",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    status: text("status").$type<CoverageStatus>().notNull().default("pending"),
    description: text("description"),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    initialItemsDiscovered: integer("initial_items_discovered").notNull().default(0),
    /** Oldest publication time discovery has reached; older posts are read by later runs. */
    backfillWatermark: ts("backfill_watermark"),
    /** The provider's paging position matching the watermark (Mastodon max_id, atproto cursor). */
    backfillCursor: text("backfill_cursor"),
    initialCompletedAt: ts("initial_completed_at"),
    lastAttemptedAt: ts("last_attempted_at"),
    lastSuccessAt: ts("last_success_at"),
    nextEligibleAt: ts("next_eligible_at"),
    /**
     * After a failure: no collection before this, whoever asks (the exponential backoff, or the platform's
     * Retry-After). Separate from next_eligible_at, which the scheduler also moves to claim a queued account.
     */
    backoffUntil: ts("backoff_until"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId] }),
    index("analytics_coverage_workspace_idx").on(t.workspaceId),
    // Scheduled refresh: accounts whose next_eligible_at has passed.
    index("analytics_coverage_next_eligible_idx").on(t.nextEligibleAt),
  ],
);
