import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { logEvent } from "../log";
import { checkValue, findSetting, liveSettings, NETWORK_ORIGINS, type OAuthNetwork } from "../settings";
import { OAUTH_PLATFORMS } from "../providers/oauth/platforms";
import { type OAuthConfig, onBase } from "../providers/oauth/spec";

const keysOf = (p: OAuthNetwork) => [`${p}_client_id`, `${p}_client_secret`, `${p}_api_base`, `${p}_auth_base`] as const;

/**
 * A base URL setting as in force: null when it is set but not one the platform's secret may go to (an
 * environment variable is not checked when saved, so it is checked here, as billing checks Stripe's base).
 */
function checkedBase(env: Env, key: string, value: string | undefined): string | undefined | null {
  if (!value) return undefined;
  const problem = checkValue(findSetting(key)!, value, { allowPrivateUrls: env.ALLOW_PRIVATE_URLS === "true" });
  if (!problem) return value.replace(/\/+$/, "");
  logEvent("warn", "an OAuth base URL setting is refused; the platform is treated as not configured", { setting: key });
  return null;
}

/**
 * The platform's configuration, read on every use (lib/settings/live.ts) so an operator's change applies at
 * once; null when the client id or secret is missing (CONTRACT §9: `configured: false`, start → 409).
 */
export async function oauthConfig(env: Env, q: Queryable, platform: OAuthNetwork): Promise<OAuthConfig | null> {
  const [idKey, secretKey, apiKey, authKey] = keysOf(platform);
  const settings = await liveSettings(env, q, keysOf(platform));
  const clientId = settings.get(idKey);
  const clientSecret = settings.get(secretKey);
  if (!clientId || !clientSecret) return null;
  const apiBase = checkedBase(env, apiKey, settings.get(apiKey));
  const authBase = checkedBase(env, authKey, settings.get(authKey));
  if (apiBase === null || authBase === null) return null;
  const spec = OAUTH_PLATFORMS[platform];
  return {
    platform,
    spec,
    clientId,
    clientSecret,
    apiBase: apiBase ?? NETWORK_ORIGINS[platform].api,
    endpoints: {
      authorize: onBase(spec.authorizeUrl, authBase),
      token: onBase(spec.tokenUrl, authBase),
      exchange: spec.longLivedExchangeUrl && onBase(spec.longLivedExchangeUrl, authBase),
      refresh: spec.refreshUrl && onBase(spec.refreshUrl, authBase),
    },
  };
}

/** Which OAuth platforms have their client id and secret set (GET /accounts/providers), in one read. */
export async function configuredPlatforms(env: Env, q: Queryable): Promise<Set<OAuthNetwork>> {
  const platforms = Object.keys(OAUTH_PLATFORMS) as OAuthNetwork[];
  const settings = await liveSettings(
    env,
    q,
    platforms.flatMap((p) => [`${p}_client_id`, `${p}_client_secret`]),
  );
  return new Set(platforms.filter((p) => settings.get(`${p}_client_id`) && settings.get(`${p}_client_secret`)));
}
