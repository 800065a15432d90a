import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { socialAccounts } from "./accounts";
import { users, workspaces } from "./identity";
import { renditions } from "./publications";
import type { RepostRuleData } from "./repost-rule";

export type { RepostOverrideData, RepostRuleData, RepostStageData } from "./repost-rule";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * SPEC.md 2.10 policies: which accounts repost which, under what rule. Account ids are kept in the order given;
 * they were checked at write time, and the evaluator skips any that have since gone.
 */
export const repostPolicies = pgTable(
  "repost_policies",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    rule: jsonb("rule").$type<RepostRuleData>().notNull(),
    sourceAccountIds: text("source_account_ids").array().notNull(),
    targetAccountIds: text("target_account_ids").array().notNull(),
    revision: integer("revision").notNull().default(1),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("repost_policies_workspace_idx").on(t.workspaceId, t.createdAt, t.id), index("repost_policies_enabled_idx").on(t.id).where(sql`${t.enabled}`)],
);

/**
 * A cross-workspace grant: an admin of the target account's workspace lets `source_workspace_id` use that
 * account as a repost target.
 */
export const repostGrants = pgTable(
  "repost_grants",
  {
    id: text("id").primaryKey(),
    sourceWorkspaceId: text("source_workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    targetWorkspaceId: text("target_workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    targetAccountId: text("target_account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("repost_grants_account_workspace_key").on(t.targetAccountId, t.sourceWorkspaceId),
    index("repost_grants_source_idx").on(t.sourceWorkspaceId),
    index("repost_grants_target_ws_idx").on(t.targetWorkspaceId),
  ],
);

export type RepostAttemptStatus = "queued" | "done" | "failed";

/**
 * One repost of a rendition by a target account at one stage of a policy, or (policy_id null) of its
 * publication's custom repost_override. The unique keys are what make it exactly once: two evaluators racing
 * insert one row, and only the inserter writes the outbox job. `unrepost_*` records undoing this stage's
 * repost when the next stage asks for it. A queued attempt whose permission was withdrawn is deleted (and the
 * activity says why), so the same stage may be queued again if the permission comes back.
 */
export const repostAttempts = pgTable(
  "repost_attempts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    policyId: text("policy_id").references(() => repostPolicies.id, { onDelete: "cascade" }),
    renditionId: text("rendition_id")
      .notNull()
      .references(() => renditions.id, { onDelete: "cascade" }),
    targetAccountId: text("target_account_id")
      .notNull()
      .references(() => socialAccounts.id, { onDelete: "cascade" }),
    stage: integer("stage").notNull(),
    /** Undo the previous stage's repost before this one. */
    unrepostPrevious: boolean("unrepost_previous").notNull().default(false),
    status: text("status").$type<RepostAttemptStatus>().notNull().default("queued"),
    reason: text("reason").notNull(),
    /** The repost's own id at the provider (a record URI on Bluesky, the reblog status id on Mastodon). */
    externalId: text("external_id"),
    errorCode: text("error_code"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
    unrepostedAt: ts("unreposted_at"),
  },
  (t) => [
    uniqueIndex("repost_attempts_key").on(t.renditionId, t.policyId, t.targetAccountId, t.stage),
    uniqueIndex("repost_attempts_override_key").on(t.renditionId, t.targetAccountId, t.stage).where(sql`${t.policyId} is null`),
    // Withdrawing a grant drops the queued attempts through that account.
    index("repost_attempts_queued_target_idx").on(t.targetAccountId, t.workspaceId).where(sql`${t.status} = 'queued'`),
    index("repost_attempts_policy_idx").on(t.policyId, t.renditionId),
    // The retention sweep walks the oldest attempts (lib/retention).
    index("repost_attempts_created_idx").on(t.createdAt),
    check("repost_attempts_stage_check", sql`${t.stage} >= 0 and ${t.stage} < 16`),
  ],
);

/** What repost automation did and why (GET /repost-automation/activity), newest first. */
export const repostActivity = pgTable(
  "repost_activity",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    policyId: text("policy_id"),
    renditionId: text("rendition_id"),
    targetAccountId: text("target_account_id"),
    stage: integer("stage").notNull(),
    action: text("action").$type<"repost" | "unrepost">().notNull(),
    /** `dropped`: a queued attempt whose policy, grant or override no longer allowed it; `reason` says which. */
    status: text("status").$type<"queued" | "done" | "failed" | "dropped">().notNull(),
    reason: text("reason").notNull(),
    externalId: text("external_id"),
    at: ts("at").notNull().defaultNow(),
  },
  (t) => [index("repost_activity_workspace_idx").on(t.workspaceId, t.at, t.id), index("repost_activity_at_idx").on(t.at)],
);

/**
 * Where the evaluator stopped in each workspace: workspaces are taken least recently evaluated first, and each
 * run examines a bounded slice of a workspace's published renditions from `after_*` on, wrapping around.
 */
export const repostEvaluatorCursors = pgTable("repost_evaluator_cursors", {
  workspaceId: text("workspace_id")
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  evaluatedAt: ts("evaluated_at").notNull(),
  afterPublishedAt: ts("after_published_at"),
  afterRenditionId: text("after_rendition_id"),
});
