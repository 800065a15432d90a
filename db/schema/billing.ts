import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations, users, workspaces } from "./identity";
import { providerCostEvents } from "./provider-costs";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export type OrganizationRole = "owner" | "member";

export const organizationMembers = pgTable(
  "organization_members",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<OrganizationRole>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    index("organization_members_user_idx").on(t.userId),
    check("organization_members_role_check", sql`${t.role} in ('owner','member')`),
  ],
);

export type SubscriptionStatus = "incomplete" | "trialing" | "active" | "past_due" | "canceled";
export type SubscriptionProvider = "admin" | "stripe" | "none";

/**
 * A plan an organization is on. At most one is current (ended_at null) per organization; without one the
 * organization is on the default plan (`free` when billing is on). An administrator's override is a
 * subscription with provider `admin`.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    planId: text("plan_id").notNull(),
    interval: text("interval").$type<"month" | "year">().notNull().default("month"),
    status: text("status").$type<SubscriptionStatus>().notNull(),
    provider: text("provider").$type<SubscriptionProvider>().notNull(),
    providerSubscriptionId: text("provider_subscription_id"),
    providerCustomerId: text("provider_customer_id"),
    currentPeriodStart: ts("current_period_start").notNull().defaultNow(),
    currentPeriodEnd: ts("current_period_end"),
    trialEnd: ts("trial_end"),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    /** The `created` second of the latest provider event applied (lib/billing/stripe-events.ts orders events by it). */
    providerEventAt: ts("provider_event_at"),
    pastDueSince: ts("past_due_since"),
    reason: text("reason"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    endedAt: ts("ended_at"),
  },
  (t) => [
    uniqueIndex("subscriptions_current_key").on(t.organizationId).where(sql`${t.endedAt} is null`),
    check("subscriptions_status_check", sql`${t.status} in ('incomplete','trialing','active','past_due','canceled')`),
    check("subscriptions_provider_check", sql`${t.provider} in ('admin','stripe','none')`),
  ],
);

export type CheckoutStatus = "open" | "completed" | "expired";

/** One checkout attempt for a confirmed purchase choice (POST /onboarding/first-workspace). */
export const checkoutAttempts = pgTable(
  "checkout_attempts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    subscriptionId: text("subscription_id").references(() => subscriptions.id, { onDelete: "set null" }),
    planId: text("plan_id").notNull(),
    interval: text("interval").$type<"month" | "year">().notNull(),
    status: text("status").$type<CheckoutStatus>().notNull(),
    provider: text("provider").$type<SubscriptionProvider>().notNull(),
    providerSessionId: text("provider_session_id"),
    checkoutUrl: text("checkout_url"),
    /** SHA-256 of the request that made it (name and token), so an exact retry resumes it. */
    requestHash: text("request_hash").notNull(),
    expiresAt: ts("expires_at").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    uniqueIndex("checkout_attempts_user_key").on(t.userId),
    uniqueIndex("checkout_attempts_session_key").on(t.providerSessionId),
    check("checkout_attempts_status_check", sql`${t.status} in ('open','completed','expired')`),
  ],
);

/** Payment provider webhook events already applied: a replayed event id changes nothing. */
export const billingWebhookEvents = pgTable("billing_webhook_events", {
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  type: text("type").notNull(),
  receivedAt: ts("received_at").notNull().defaultNow(),
});

/**
 * What an organization created: one row per publication or build, written by a trigger on their insert (migration
 * 0029, which also recorded the rows that existed). Monthly usage counts these, so deleting what was created gives
 * nothing back. No foreign key to the workspace or the subject: the record outlives both.
 */
export const usageEvents = pgTable(
  "usage_events",
  {
    kind: text("kind").$type<"publication" | "build">().notNull(),
    subjectId: text("subject_id").notNull(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.subjectId] }),
    index("usage_events_organization_idx").on(t.organizationId, t.kind, t.createdAt),
    // The retention sweep's (lib/retention/bookkeeping.ts): events older than any usage period.
    index("usage_events_created_idx").on(t.createdAt),
    check("usage_events_kind_check", sql`${t.kind} in ('publication','build')`),
  ],
);

/**
 * The answer of a paid provider call that is made at most once (lib/builds/model.ts `once`, e.g. a build's draft),
 * kept so a redelivered job reuses what was paid for instead of paying again. Goes with its ledger row.
 */
export const providerCallAnswers = pgTable("provider_call_answers", {
  costEventId: text("cost_event_id")
    .primaryKey()
    .references(() => providerCostEvents.id, { onDelete: "cascade" }),
  answer: jsonb("answer").$type<unknown>().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/**
 * A checkout for an organization that already exists (POST /billing/checkout): buying or changing to a paid plan
 * through a hosted Stripe Checkout Session. Its subscription is made when Stripe says it was paid, replacing the
 * organization's current one then (an abandoned checkout leaves the organization as it was).
 */
export const planCheckouts = pgTable(
  "plan_checkouts",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    subscriptionId: text("subscription_id").references(() => subscriptions.id, { onDelete: "set null" }),
    planId: text("plan_id").notNull(),
    interval: text("interval").$type<"month" | "year">().notNull(),
    status: text("status").$type<CheckoutStatus>().notNull(),
    providerSessionId: text("provider_session_id"),
    checkoutUrl: text("checkout_url"),
    /** SHA-256 of the organization and continuation token, so an exact retry resumes it. */
    requestHash: text("request_hash").notNull(),
    expiresAt: ts("expires_at").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    uniqueIndex("plan_checkouts_session_key").on(t.providerSessionId),
    uniqueIndex("plan_checkouts_request_key").on(t.organizationId, t.requestHash),
    check("plan_checkouts_status_check", sql`${t.status} in ('open','completed','expired')`),
  ],
);
