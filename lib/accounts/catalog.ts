import type { Platform } from "../../db/schema/accounts";
import { canonicalJson, sha256Hex } from "../crypto";
import { DEFAULT_PDS } from "../providers/bluesky-xrpc";

/**
 * What Herald can do with each provider, stated honestly (SPEC.md 2.8 Provider and Readiness). Pure data:
 * GET /accounts/providers presents it, AccountResponse draws its capability flags from it.
 */

export interface ProviderFacts {
  approval: string;
  authorization: string;
  configuration: string;
  control: string;
  live_certification: string;
  local_test: string;
  policy: string;
}

export interface ProviderSpec {
  platform: Platform;
  display_name: string;
  description: string;
  auth_mode: string;
  connection_modes: string[];
  instance_url: string | null;
  capabilities: string[];
  messaging_supported: boolean;
  thread_replies_supported: boolean;
  analytics_ready: boolean;
  facts: ProviderFacts;
  blockers: { code: string; detail: string }[];
}

const NO_ANALYTICS = {
  code: "analytics_not_collected",
  detail: "A webhook endpoint has no posts or metrics to read; import measurements with POST /analytics/measurements.",
};

export const PROVIDERS: Record<Platform, ProviderSpec> = {
  webhook: {
    platform: "webhook",
    display_name: "Webhook",
    description: "Delivers each rendition as one signed JSON POST (Standard Webhooks) to a URL you choose.",
    auth_mode: "signing_secret",
    connection_modes: ["url"],
    instance_url: null,
    capabilities: ["publish", "segments", "media_urls", "signed_delivery", "retry_dedup_by_webhook_id"],
    messaging_supported: false,
    thread_replies_supported: false,
    analytics_ready: false,
    facts: {
      approval: "None needed: you own the receiving endpoint.",
      authorization: "Optional shared secret; deliveries are signed with HMAC-SHA256 (whsec_ secrets keyed by their decoded bytes).",
      configuration: "None by the operator; each account names its URL (https, public addresses unless the instance allows private URLs).",
      control: "Delete the account to stop deliveries; rotate the secret by reconnecting.",
      live_certification: "Not applicable: any receiver that verifies Standard Webhooks signatures works.",
      local_test: "Tested against a local receiver that verifies signatures independently and fails on purpose (500, 400, 429, hang).",
      policy: "Retries reuse the webhook-id so receivers can drop duplicates; 408, 429, 5xx and network errors are retried, other 4xx are not.",
    },
    blockers: [NO_ANALYTICS, { code: "messages_not_applicable", detail: "A webhook endpoint has no mentions or replies to collect." }],
  },
  bluesky: {
    platform: "bluesky",
    display_name: "Bluesky",
    description: "Posts to Bluesky or any AT Protocol PDS; threads become reply chains; 300 graphemes per post.",
    auth_mode: "app_password",
    connection_modes: ["app_password"],
    instance_url: DEFAULT_PDS,
    capabilities: ["publish", "threads", "link_facets", "images", "messages", "idempotent_record_keys", "analytics"],
    messaging_supported: true,
    thread_replies_supported: true,
    // POST /analytics/refresh and the scheduler collect posts from the PDS and counts from the AppView it proxies to.
    analytics_ready: true,
    facts: {
      approval: "None needed: any account holder can connect.",
      authorization:
        "An app password the account owner creates in Bluesky settings (Privacy and security → App passwords), with the handle or email as identifier.",
      configuration: "None by the operator. instance_url defaults to https://bsky.social; give a PDS URL for accounts elsewhere.",
      control: "The account owner can revoke the app password at any time; Herald then reports an authentication error.",
      live_certification: "Not certified against bsky.social from this deployment.",
      local_test:
        "Publishing, record-key idempotency, profile reads and analytics collection are tested against a real PDS (@atproto/pds 0.4.217) on loopback. Message collection and like, repost, reply and follower counts need an AppView, which the local tests do not run: counts are tested against a stand-in written from the lexicons, and without an AppView they are reported unavailable, never zero.",
      policy: "Each post's record key derives from the rendition and segment, so a retry finds the existing post instead of posting twice.",
    },
    blockers: [],
  },
  mastodon: {
    platform: "mastodon",
    display_name: "Mastodon (and Mastodon-API servers)",
    description: "Posts to any server with the Mastodon API; threads through replies; 500 characters unless the server announces its own limit.",
    auth_mode: "access_token",
    connection_modes: ["access_token"],
    instance_url: null,
    capabilities: ["publish", "threads", "media", "messages", "idempotency_key", "analytics"],
    messaging_supported: true,
    thread_replies_supported: true,
    // Followers and each status's favourites, reblogs and replies through the Mastodon API (needs the read scope).
    analytics_ready: true,
    facts: {
      approval: "None needed: any account holder can connect.",
      authorization: "An access token with read and write scopes (Preferences → Development → New application on Mastodon), plus the server's URL.",
      configuration: "None by the operator.",
      control: "The account owner can revoke the token at any time; Herald then reports an authentication error.",
      live_certification: "Not certified against a live Mastodon server from this deployment.",
      local_test: "Tested against a local server written from the Mastodon API documentation (no Mastodon server can run in the test environment).",
      policy:
        "Every status carries an Idempotency-Key derived from the rendition and segment; Mastodon honours it for about an hour, after which reconciliation reads the account's recent statuses.",
    },
    blockers: [],
  },
};

export interface Readiness {
  state: string;
  advertisable: boolean;
  analytics_ready: boolean;
  connectable: boolean;
  discoverable: boolean;
  executable: boolean;
  observable: boolean;
  publishable: boolean;
  blockers: { code: string; detail: string }[];
  contract_digest: string;
  facts: ProviderFacts;
}

/** Readiness of a provider: every provider here connects and publishes without operator configuration. */
export async function readinessOf(spec: ProviderSpec): Promise<Readiness> {
  const contract = {
    platform: spec.platform,
    auth_mode: spec.auth_mode,
    capabilities: spec.capabilities,
    connection_modes: spec.connection_modes,
    facts: spec.facts,
  };
  return {
    state: "ready",
    advertisable: true,
    analytics_ready: spec.analytics_ready,
    connectable: true,
    discoverable: true,
    executable: true,
    observable: spec.messaging_supported,
    publishable: true,
    blockers: spec.blockers,
    contract_digest: `sha256:${await sha256Hex(canonicalJson(contract))}`,
    facts: spec.facts,
  };
}
