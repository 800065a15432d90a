import type { Platform } from "../../db/schema/accounts";
import { DomainError } from "../errors";
import { blueskyAdapter } from "./bluesky/adapter";
import { discordAdapter } from "./discord/adapter";
import { facebookAdapter } from "./facebook/adapter";
import { instagramAdapter } from "./instagram/adapter";
import { linkedinAdapter } from "./linkedin/adapter";
import { mastodonAdapter } from "./mastodon/adapter";
import { threadsAdapter } from "./threads/adapter";
import { tiktokAdapter } from "./tiktok/adapter";
import type { ProviderAdapter } from "../providers/types";
import { webhookAdapter } from "./webhook/adapter";
import { xAdapter } from "./x/adapter";
import { youtubeAdapter } from "./youtube/adapter";

/**
 * The adapters built so far. Partial by type: a platform can be listed (PLATFORMS, GET /accounts/providers) before
 * its adapter exists, and connecting or publishing to it then answers 501 until it does (since issue 29 every
 * listed platform has one).
 */
const ADAPTERS: Partial<Record<Platform, ProviderAdapter>> = {
  webhook: webhookAdapter,
  bluesky: blueskyAdapter,
  mastodon: mastodonAdapter,
  discord: discordAdapter,
  x: xAdapter,
  threads: threadsAdapter,
  linkedin: linkedinAdapter,
  tiktok: tiktokAdapter,
  youtube: youtubeAdapter,
  facebook: facebookAdapter,
  instagram: instagramAdapter,
};

export const hasAdapter = (platform: Platform): boolean => ADAPTERS[platform] !== undefined;

/** The adapter of a platform; `not-implemented` (501) for a platform whose adapter is not built yet. */
export function adapterFor(platform: Platform): ProviderAdapter {
  const adapter = ADAPTERS[platform];
  if (!adapter) throw new DomainError("not-implemented", `Publishing to ${platform} is not built yet; nothing was changed.`);
  return adapter;
}
