import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { socialAccounts } from "./accounts";
import { users, workspaces } from "./identity";
import type { RepostOverrideData } from "./repost-rule";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export type PublicationStatus = "draft" | "scheduled" | "publishing" | "published" | "partially_published" | "failed";

export const publications = pgTable(
  "publications",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    revision: integer("revision").notNull().default(1),
    status: text("status").$type<PublicationStatus>().notNull(),
    title: text("title"),
    sourceText: text("source_text").notNull(),
    sourceUrl: text("source_url"),
    contentProfile: text("content_profile"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    mediaIds: text("media_ids").array().notNull().default(sql`'{}'`),
    /** Destination platforms, denormalised so the platform filter is one GIN lookup. */
    platforms: text("platforms").array().notNull().default(sql`'{}'`),
    scheduledAt: ts("scheduled_at"),
    randomDelayMinutes: integer("random_delay_minutes").notNull().default(0),
    /** When the scheduler will actually run it: scheduled_at plus the drawn random delay. */
    runAt: ts("run_at"),
    actualRunAt: ts("actual_run_at"),
    /** Calendar position: the actual run time once it ran, else the planned one (calendar filters). */
    calendarAt: ts("calendar_at"),
    failureDismissedAt: ts("failure_dismissed_at"),
    /** SPEC.md 2.5 RepostOverride; null: inherit the workspace's repost policies. */
    repostOverride: jsonb("repost_override").$type<RepostOverrideData>(),
    /** When the stalled-delivery sweep last queued a job for it (lib/delivery/store.ts): at most one per few minutes. */
    lastSweptAt: ts("last_swept_at"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    // Ascending on purpose: scanned backwards they give ORDER BY created_at DESC, id DESC (NULLS FIRST);
    // a DESC NULLS LAST index would not match that order and the planner would sort instead.
    index("publications_workspace_created_idx").on(t.workspaceId, t.createdAt, t.id),
    index("publications_workspace_status_idx").on(t.workspaceId, t.status, t.createdAt, t.id),
    index("publications_workspace_profile_idx").on(t.workspaceId, t.contentProfile, t.createdAt, t.id),
    index("publications_workspace_calendar_idx").on(t.workspaceId, t.calendarAt),
    index("publications_platforms_idx").using("gin", t.platforms).with({ fastupdate: false }),
    // ILIKE '%term%' on title or source text is served by this trigram index (pg_trgm), led by the workspace
    // (btree_gin), without GIN's pending list (fastupdate): entries waiting there made the planner price the
    // index far too high. Over 20,000 publications, 'launch' (1 %) took 9 ms through a backward scan of the
    // created_at index and a term found nowhere 29 ms (a sequential scan); now 0.5 ms and 0.03 ms, while common
    // terms keep the backward scan (0.1–0.2 ms). (EXPLAIN ANALYZE, best of 5.)
    index("publications_search_idx")
      .using("gin", t.workspaceId, sql`(coalesce(${t.title}, '') || ' ' || ${t.sourceText}) gin_trgm_ops`)
      .with({ fastupdate: false }),
    index("publications_due_idx").on(t.runAt).where(sql`${t.status} = 'scheduled'`),
    // The repost evaluator's workspaces: those with a publication of its own repost rule.
    index("publications_repost_custom_idx").on(t.workspaceId).where(sql`${t.repostOverride} ->> 'mode' = 'custom'`),
  ],
);

/** The source content as segments (SPEC 2.5 PublicationSegment); renditions derive theirs from it. */
export const publicationSegments = pgTable(
  "publication_segments",
  {
    id: text("id").primaryKey(),
    publicationId: text("publication_id")
      .notNull()
      .references(() => publications.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    title: text("title"),
    body: text("body").notNull(),
    url: text("url"),
  },
  (t) => [uniqueIndex("publication_segments_position_key").on(t.publicationId, t.position)],
);

/** `published`, `failed` and `canceled` are terminal (CONTRACT §9: every delivery ends in one of them). */
export type RenditionStatus = "pending" | "queued" | "publishing" | "retrying" | "reconciling" | "published" | "failed" | "canceled";

export const renditions = pgTable(
  "renditions",
  {
    id: text("id").primaryKey(),
    publicationId: text("publication_id")
      .notNull()
      .references(() => publications.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    socialAccountId: text("social_account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "restrict" }),
    platform: text("platform").notNull(),
    position: integer("position").notNull(),
    title: text("title"),
    body: text("body").notNull(),
    /** Segments were given explicitly, so edits of the source text do not re-split them. */
    formatLocked: boolean("format_locked").notNull().default(false),
    status: text("status").$type<RenditionStatus>().notNull().default("pending"),
    /** Stable across every retry: webhook-id, seed of Bluesky record keys and Mastodon Idempotency-Keys. */
    deliveryKey: text("delivery_key").notNull(),
    externalId: text("external_id"),
    externalUrl: text("external_url"),
    attemptCount: integer("attempt_count").notNull().default(0),
    /** attempt_count when it was last queued by a publish: the attempts of this round are the ones after it (at most 8). */
    attemptsBeforeRound: integer("attempts_before_round").notNull().default(0),
    currentAttemptId: text("current_attempt_id"),
    currentAttemptAt: ts("current_attempt_at"),
    /** When the next attempt (or reconciliation) is due. */
    nextAttemptAt: ts("next_attempt_at"),
    /** A consumer holding the rendition until then; a lapsed lease means that consumer died. */
    leaseUntil: ts("lease_until"),
    lastReconciledAt: ts("last_reconciled_at"),
    errorKind: text("error_kind"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    errorHttpStatus: integer("error_http_status"),
    errorRetryable: boolean("error_retryable").notNull().default(false),
    errorRetryAt: ts("error_retry_at"),
    errorAction: text("error_action"),
    terminalReason: text("terminal_reason"),
    recoveryAction: text("recovery_action").notNull().default("none"),
    publishedAt: ts("published_at"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("renditions_publication_idx").on(t.publicationId, t.position),
    index("renditions_account_idx").on(t.socialAccountId),
    uniqueIndex("renditions_delivery_key").on(t.deliveryKey),
    // The stalled-delivery sweep reads only renditions still in flight, by when they came due.
    index("renditions_in_flight_idx").on(t.nextAttemptAt).where(sql`${t.status} in ('queued', 'retrying', 'reconciling', 'publishing')`),
    // The repost evaluator walks a workspace's published renditions in publication order (lib/repost/candidates.ts).
    index("renditions_repost_scan_idx").on(t.workspaceId, t.publishedAt, t.id).where(sql`${t.status} = 'published'`),
  ],
);

export const renditionSegments = pgTable(
  "rendition_segments",
  {
    id: text("id").primaryKey(),
    renditionId: text("rendition_id")
      .notNull()
      .references(() => renditions.id, { onDelete: "cascade" }),
    publicationSegmentId: text("publication_segment_id"),
    position: integer("position").notNull(),
    title: text("title"),
    body: text("body").notNull(),
    url: text("url"),
    titleOverride: text("title_override"),
    bodyOverride: text("body_override"),
    urlOverride: text("url_override"),
    status: text("status").$type<"pending" | "published" | "failed">().notNull().default("pending"),
    externalId: text("external_id"),
    externalUrl: text("external_url"),
    /** Provider detail needed to continue a thread (Bluesky reply refs need the record's cid). */
    externalCid: text("external_cid"),
    errorKind: text("error_kind"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    errorHttpStatus: integer("error_http_status"),
    errorRetryAt: ts("error_retry_at"),
    errorAction: text("error_action"),
  },
  (t) => [uniqueIndex("rendition_segments_position_key").on(t.renditionId, t.position)],
);

/** One row per delivery attempt of a rendition (Delivery.current_attempt_*). */
export const deliveryAttempts = pgTable(
  "delivery_attempts",
  {
    id: text("id").primaryKey(),
    renditionId: text("rendition_id")
      .notNull()
      .references(() => renditions.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    jobId: text("job_id"),
    outcome: text("outcome").$type<"in_flight" | "succeeded" | "failed" | "unknown">().notNull().default("in_flight"),
    errorCode: text("error_code"),
    startedAt: ts("started_at").notNull().defaultNow(),
    finishedAt: ts("finished_at"),
  },
  (t) => [
    uniqueIndex("delivery_attempts_number_key").on(t.renditionId, t.number),
    // The retention sweep walks the oldest attempts (lib/retention).
    index("delivery_attempts_started_idx").on(t.startedAt),
  ],
);
