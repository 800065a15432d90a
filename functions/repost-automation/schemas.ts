import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { knownValue, Timestamp } from "../../lib/schemas/common";
import { RepostRule } from "../../lib/schemas/repost-rule";

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
    direction: knownValue("outbound", "Whether this workspace gives or receives the grant"),
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
