import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { knownValue, OptionalTimestamp } from "../../lib/schemas/common";

/** SPEC.md 2.8 Readiness: what a provider (or one of its connection modes) can do here and why not. */
export const Readiness = z
  .object({
    state: z.string(),
    advertisable: z.boolean(),
    analytics_ready: z.boolean(),
    connectable: z.boolean(),
    discoverable: z.boolean(),
    executable: z.boolean(),
    observable: z.boolean(),
    publishable: z.boolean(),
    blockers: z.array(z.object({ code: z.string(), detail: z.string() }).openapi("ReadinessBlocker")),
    contract_digest: z.string(),
    facts: z
      .object({
        approval: z.string(),
        authorization: z.string(),
        configuration: z.string(),
        control: z.string(),
        live_certification: z.string(),
        local_test: z.string(),
        policy: z.string(),
      })
      .openapi("ReadinessFacts"),
  })
  .openapi("Readiness");

/** SPEC.md 2.8 Provider: an account provider (CONTRACT.md §4: webhook, bluesky, mastodon). */
export const Provider = responseObject("Provider", {
  name: z.string().openapi({ example: "mastodon" }),
  platform: z.string(),
  display_name: z.string(),
  description: z.string(),
  auth_mode: z.string(),
  status: z.string(),
  configured: z.boolean(),
  installation_id: z.string().nullable(),
  instance_url: z.string().nullable(),
  capabilities: z.array(z.string()),
  connection_modes: z.array(z.string()),
  configured_connection_modes: z.array(z.string()),
  connection_readiness: z.record(z.string(), Readiness).openapi({ description: "Readiness per connection mode" }),
  readiness: Readiness,
});

/** SPEC.md 2.8 AccountResponse: a connected social account. Credentials are never returned. */
export const AccountResponse = responseObject("AccountResponse", {
  id: z.string().openapi({ example: "acc_0123456789abcdefghijklmn" }),
  platform: z.string(),
  slug: z.string(),
  account_id: z.string().openapi({ description: "The account's id at its provider" }),
  account_kind: z.string(),
  account_username: z.string().nullable(),
  account_avatar_url: z.string().nullable(),
  instance_url: z.string().nullable(),
  fediverse_software: z.string().nullable(),
  provider_installation_id: z.string().nullable(),
  is_active: z.boolean(),
  messages_enabled: z.boolean(),
  messaging_supported: z.boolean(),
  thread_replies_supported: z.boolean(),
  shared_grant: z.boolean(),
  grant_destination_count: z.number().int(),
  limit_profile: knownValue("standard", "Rate-limit profile"),
  capability_checked_at: OptionalTimestamp,
});

/** SPEC.md 2.8 RefreshCapabilityOutcome; CONTRACT.md §4 fixes the statuses. */
export const RefreshCapabilityOutcome = responseObject("RefreshCapabilityOutcome", {
  status: z.enum(["queued", "unavailable"]).openapi({ description: "`unavailable` (with queued 0) when no account of the workspace can do it" }),
  queued: z.number().int().openapi({ description: "Accounts queued" }),
  error_code: z.string().nullable(),
});
