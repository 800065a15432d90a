import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { ACCOUNT_STATUSES, PLATFORMS } from "../../db/schema/accounts";
import { MAX_URL_LENGTH } from "../../lib/net/outbound-url";
import { knownValue, OptionalTimestamp, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";

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
  limits: z
    .object({
      text_limit: z.number().int().openapi({ description: "Length of one post's text, in text_unit" }),
      text_unit: z.enum(["characters", "graphemes", "weighted_characters"]),
      media_max_count: z.number().int().openapi({ description: "Attachments one post carries" }),
      media_kinds: z.array(z.enum(["image", "video", "audio"])),
      threads: z.boolean().openapi({ description: "Segments become a reply chain on the platform" }),
      reposts: z.boolean().openapi({ description: "The platform's API lets Herald repost" }),
      analytics: z.boolean().openapi({ description: "The platform's API gives per-post metrics" }),
      video_max_duration_seconds: z.number().int().nullable().openapi({
        description:
          "Longest video one post carries, in seconds (YouTube: 12 hours; an unverified channel takes 15 minutes, which YouTube enforces at upload). Null when Herald sends no video to the platform or the platform sets no length. A publication whose video is longer is refused with a 422 when it is created; a video whose duration Herald could not read is left to the platform",
      }),
      video_max_bytes: z.number().int().nullable().openapi({
        description:
          "Largest video file one post carries, in bytes; null when Herald sends no video to the platform. For webhooks, the instance's upload limit (MEDIA_MAX_BYTES). A larger video is refused with a 422 when the publication is created",
      }),
      image_max_bytes: z.number().int().nullable().openapi({
        description:
          "Largest image file Herald sends to the platform, in bytes; null when Herald sends no images there or sets no bound of its own (the platform then decides at publication). A larger image is refused with a 422 when the publication is created",
      }),
    })
    .openapi("ProviderLimits", { description: "What one post of the platform carries, as the platform documents it" }),
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
  status: z.enum(ACCOUNT_STATUSES).openapi({
    description:
      "`reconnect_required` when an OAuth platform refused to refresh the account's token, or refused the token itself when Herald published (revoked): connect it again; it is not sent to until then",
  }),
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

const Secret = (max: number, description: string) => z.string().min(1).max(max).openapi({ description });

/**
 * CONTRACT.md §4 POST /accounts. Which fields each platform takes: webhook `url` (+ `secret`, `username`);
 * bluesky `identifier` + `app_password` (+ `instance_url`, default https://bsky.social); mastodon
 * `instance_url` + `access_token`; discord `url` (a channel webhook). Credentials are write-only. The OAuth
 * platforms (x, linkedin, threads, facebook, instagram, tiktok, youtube) connect through
 * POST /accounts/connect/{platform}/start instead.
 */
export const CreateAccountRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    platform: z.enum(PLATFORMS),
    username: z.string().trim().min(1).max(200).optional().openapi({ description: "Display name for a webhook; read from the provider otherwise" }),
    instance_url: z.string().min(1).max(MAX_URL_LENGTH).optional().openapi({ description: "Bluesky PDS (default https://bsky.social) or Mastodon-API server" }),
    url: z.string().min(1).max(MAX_URL_LENGTH).optional().openapi({ description: "Webhook endpoint" }),
    secret: Secret(1000, "Webhook signing secret (`whsec_<base64>` or any text)").optional(),
    identifier: Secret(300, "Bluesky handle, DID or email").optional(),
    app_password: Secret(200, "Bluesky app password").optional(),
    access_token: Secret(2000, "Mastodon access token (read and write scopes)").optional(),
  })
  .superRefine((body, ctx) => {
    const needs: Record<string, (keyof typeof body)[]> = {
      webhook: ["url"],
      bluesky: ["identifier", "app_password"],
      mastodon: ["instance_url", "access_token"],
      discord: ["url"],
    };
    const allowed: Record<string, (keyof typeof body)[]> = {
      webhook: ["url", "secret"],
      bluesky: ["identifier", "app_password", "instance_url"],
      mastodon: ["instance_url", "access_token"],
      discord: ["url"],
    };
    if (!needs[body.platform]) {
      ctx.addIssue({ code: "custom", path: ["platform"], message: `Connect ${body.platform} through POST /accounts/connect/${body.platform}/start` });
      return;
    }
    for (const field of needs[body.platform]) {
      if (body[field] === undefined) ctx.addIssue({ code: "custom", path: [field], message: `Required for platform ${body.platform}` });
    }
    for (const field of ["url", "secret", "identifier", "app_password", "instance_url", "access_token"] as const) {
      if (body[field] !== undefined && !allowed[body.platform].includes(field))
        ctx.addIssue({ code: "custom", path: [field], message: `Not used by platform ${body.platform}` });
    }
  })
  .openapi("CreateAccountRequest");

/** A mention or reply collected from a provider. */
export const Message = responseObject("Message", {
  id: z.string().openapi({ example: "msg_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  account_id: z.string().openapi({ description: "The connected account (AccountResponse.id) it was addressed to" }),
  platform: z.string(),
  kind: z.enum(["mention", "reply"]),
  external_id: z.string().openapi({ description: "The message's id at the provider (an at:// URI on Bluesky, a status id on Mastodon)" }),
  author_handle: z.string(),
  text: z.string(),
  url: z.string().nullable(),
  in_reply_to_external_id: z.string().nullable(),
  created_at: Timestamp.openapi({ description: "When the provider says it was written" }),
  collected_at: Timestamp,
});

/** CONTRACT §9 POST /accounts/connect/{platform}/start. */
export const ConnectStartRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    redirect_uri: z
      .string()
      .min(1)
      .max(MAX_URL_LENGTH)
      .optional()
      .openapi({ description: "Where the browser goes after the callback, with `?account_id=` or `?error=`; on PUBLIC_BASE_URL's origin" }),
  })
  .openapi("ConnectStartRequest");

export const ConnectStarted = responseObject("ConnectStarted", {
  authorization_url: z.string().openapi({ description: "The platform's authorization page: send the browser there" }),
  state: z.string().openapi({ description: "The single-use state the authorization URL carries" }),
  expires_at: Timestamp.openapi({ description: "When the state stops being accepted (10 minutes)" }),
});
