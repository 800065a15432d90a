import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IdParam, knownValue, RevisionField, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";

/**
 * CONTRACT.md §8 RepostRule, the shape that contract fixes for policies (SPEC.md 2.5's RepostRule stays the
 * publications' own). Bounded so one policy's evaluation stays small.
 */
export const RepostPolicyRule = z
  .object({
    match: z.enum(["all", "any"]).openapi({ description: "`all`: every threshold must be met; `any`: one is enough" }),
    thresholds: z
      .array(z.object({ metric: z.enum(["likes", "reposts", "replies", "views", "engagement"]), min: z.number().int().min(0).max(2_000_000_000) }))
      .max(5)
      .refine((t) => new Set(t.map((x) => x.metric)).size === t.length, "Each metric at most once")
      .openapi({ description: "None: every post in the window qualifies" }),
    window_hours: z.number().int().min(1).max(168).openapi({ description: "Only posts published this recently are considered" }),
    plateau: z
      .object({
        checks: z.number().int().min(2).max(10),
        max_growth_percent: z.number().min(0).max(1000),
      })
      .optional()
      .openapi({ description: "Wait until engagement grew by at most `max_growth_percent` across the last `checks` measurements" }),
    stages: z
      .array(z.object({ delay_minutes: z.number().int().min(0).max(10_080) }))
      .min(1)
      .max(5),
    unrepost_previous: z.boolean().openapi({ description: "Undo the previous stage's repost before reposting at the next stage" }),
  })
  .openapi("RepostPolicyRule");

/** SPEC.md 2.10: an account that can repost or be reposted, possibly from another workspace. */
export const RepostAccount = z
  .object({
    id: z.string(),
    platform: z.string(),
    username: z.string().nullable(),
    avatar_url: z.string().nullable(),
    instance_url: z.string().nullable(),
    workspace_id: z.string(),
    workspace_name: z.string(),
    cross_workspace: z.boolean(),
    grant_required: z.boolean(),
    grant_active: z.boolean(),
    supports_repost: z.boolean(),
    unavailable_reason: z.string().nullable(),
  })
  .openapi("RepostAccount");

/** SPEC.md 2.10: permission for one workspace's account to repost another's content. */
export const RepostGrant = z
  .object({
    id: z.string(),
    platform: z.string(),
    direction: knownValue("outbound", "`outbound`: this workspace gave the grant for its account; `inbound`: it received it"),
    source_workspace_id: z.string(),
    source_workspace_name: z.string(),
    target_workspace_id: z.string(),
    target_workspace_name: z.string(),
    target_account_id: z.string(),
    target_username: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi("RepostGrant");

/** SPEC.md 2.10: which accounts repost which, under what rule. */
export const RepostPolicy = z
  .object({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    rule: RepostPolicyRule,
    source_account_ids: z.array(z.string()),
    target_account_ids: z.array(z.string()),
    workspace_id: z.string(),
    revision: z.number().int().openapi({ description: "Starts at 1; name it as `expected_revision` to replace the policy" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("RepostPolicy");

/** SPEC.md 2.10 SettingsResponse. */
export const SettingsResponse = responseObject("SettingsResponse", {
  workspace_id: z.string(),
  can_manage: z.boolean().openapi({ description: "Whether the caller may change repost rules (admin or owner)" }),
  supported_platforms: z.array(z.string()),
  accounts: z.array(RepostAccount),
  grants: z.array(RepostGrant),
  policies: z.array(RepostPolicy),
});

/** A policy as it is returned on its own (create and replace). */
export const RepostPolicyResponse = responseObject("RepostPolicyResponse", RepostPolicy.shape);

const AccountIds = z.array(IdParam).min(1).max(20);

export const CreatePolicyRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    name: z.string().trim().min(1).max(200),
    enabled: z.boolean().default(true),
    source_account_ids: AccountIds,
    target_account_ids: AccountIds,
    rule: RepostPolicyRule,
  })
  .openapi("CreateRepostPolicyRequest");

export const ReplacePolicyRequest = CreatePolicyRequest.omit({ workspace_id: true })
  .extend({ expected_revision: RevisionField })
  .openapi("ReplaceRepostPolicyRequest");

export const PolicyIdParams = z.object({ id: IdParam.openapi({ param: { name: "id", in: "path" } }) });
export const GrantIdParams = PolicyIdParams;

export const CreateGrantRequest = z.object({ target_account_id: IdParam, source_workspace_id: WorkspaceIdField }).openapi("CreateRepostGrantRequest");

export const RepostGrantResponse = responseObject("RepostGrantResponse", RepostGrant.shape);

/** CONTRACT.md §8: one thing repost automation did, and why. */
export const RepostActivityItem = z
  .object({
    id: z.string(),
    policy_id: z.string().nullable(),
    rendition_id: z.string().nullable(),
    target_account_id: z.string().nullable(),
    stage: z.number().int(),
    action: z.enum(["repost", "unrepost"]),
    status: z.enum(["queued", "done", "failed"]),
    reason: z.string(),
    external_id: z.string().nullable(),
    at: Timestamp,
  })
  .openapi("RepostActivityItem");

export const RepostActivityResponse = responseObject("RepostActivityResponse", { items: z.array(RepostActivityItem) });
