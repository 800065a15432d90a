import type { Platform } from "../../db/schema/accounts";
import { blueskyAdapter } from "./bluesky";
import { mastodonAdapter } from "./mastodon";
import type { ProviderAdapter } from "./types";
import { webhookAdapter } from "./webhook";

const ADAPTERS: Record<Platform, ProviderAdapter> = {
  webhook: webhookAdapter,
  bluesky: blueskyAdapter,
  mastodon: mastodonAdapter,
};

/** The adapter of a platform. */
export function adapterFor(platform: Platform): ProviderAdapter {
  const adapter = ADAPTERS[platform];
  if (!adapter) throw new Error(`no adapter for platform ${platform}`);
  return adapter;
}
