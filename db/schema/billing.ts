import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations, users, workspaces } from "./identity";

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
