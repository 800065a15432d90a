import type { Platform } from "../../../db/schema/accounts";

/**
 * Each OAuth platform's authorization facts, as plain data (one row per platform; an adapter's author adds or
 * adjusts its row only). Endpoint URLs are the platform's own; a `<platform>_auth_base` setting replaces their
 * origin (keeping the path), a `<platform>_api_base` setting the API's (lib/accounts/oauth-config.ts).
 */
export interface OAuthPlatform {
  authorizeUrl: string;
  tokenUrl: string;
  scopes: readonly string[];
  /** How the platform joins scopes in the authorization URL (RFC 6749 says space; Meta and TikTok use commas). */
  scopeSeparator: " " | ",";
  /** PKCE S256 (RFC 7636) where the platform supports it for a confidential web client. */
  pkce: boolean;
  /** How the token endpoint authenticates the client: HTTP Basic (RFC 6749 §2.3.1) or id and secret in the form body. */
  clientAuth: "basic" | "body";
  /** The name of the client id parameter (TikTok calls it `client_key`). */
  clientIdParam: "client_id" | "client_key";
  extraAuthorizeParams?: Readonly<Record<string, string>>;
  /**
   * How an access token is renewed: RFC 6749 §6 refresh_token grant; Threads' th_refresh_token (the long-lived
   * access token refreshes itself at `refreshUrl`); none (the account is reconnected when the token expires).
   */
  refresh: "refresh_token" | "th_refresh_token" | "none";
  /**
   * The short-lived token from the code is exchanged for a long-lived one (GET): Threads' th_exchange_token, or
   * Meta's fb_exchange_token (a 60-day user token; Page tokens read with it never expire).
   */
  longLivedExchangeUrl?: string;
  longLivedGrant?: "th_exchange_token" | "fb_exchange_token";
  refreshUrl?: string;
  /** Refresh this long before the access token expires (default 5 minutes). */
  refreshAheadSeconds?: number;
  /** The reference the row follows. */
  reference: string;
}

/** One OAuth platform as this instance is set up for it now: the operator's app and the endpoints to use. */
export interface OAuthConfig {
  platform: Platform;
  spec: OAuthPlatform;
  clientId: string;
  clientSecret: string;
  /** The platform's API base (no trailing slash): the adapter's `instanceUrl`. */
  apiBase: string;
  endpoints: { authorize: string; token: string; exchange?: string; refresh?: string };
}

/** `https://x.com/i/oauth2/authorize` on base `http://127.0.0.1:9/x` → `http://127.0.0.1:9/x/i/oauth2/authorize`. */
export function onBase(url: string, base: string | undefined): string {
  if (!base) return url;
  const u = new URL(url);
  return `${base.replace(/\/+$/, "")}${u.pathname}${u.search}`;
}
