import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IdParam, knownValue, RevisionField, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";
import { RepostRule, RepostRuleInput } from "../../lib/schemas/repost-rule";
import { RULE_LIMITS } from "../../lib/repost/limits";

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
    rule: RepostRule,
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

const AccountIds = z.array(IdParam).min(1).max(RULE_LIMITS.maxTargets);

export const CreatePolicyRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    name: z.string().trim().min(1).max(200),
    enabled: z.boolean().default(true),
    source_account_ids: AccountIds,
    target_account_ids: AccountIds.openapi({ description: "Accounts that repost: Bluesky or Mastodon, the workspace's own or granted to it" }),
    rule: RepostRuleInput,
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
    status: z.enum(["queued", "done", "failed", "dropped"]).openapi({
      description: "`dropped`: queued, then no longer allowed (policy disabled or deleted, grant withdrawn, override changed); `reason` says which",
    }),
    reason: z.string(),
    external_id: z.string().nullable(),
    at: Timestamp,
  })
  .openapi("RepostActivityItem");

export const RepostActivityResponse = responseObject("RepostActivityResponse", { items: z.array(RepostActivityItem) });
