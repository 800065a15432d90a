import { OAuth2Tokens } from "arctic";
import { errorFromResponse, providerFetch, readJson } from "../http";
import { ProviderError } from "../types";
import type { OAuthConfig } from "./spec";

/**
 * The token endpoint calls (RFC 6749 §4.1.3 code exchange, §6 refresh; Threads' GET exchanges). Made through
 * providerFetch rather than arctic's OAuth2Client, which sends with the global fetch (no timeout: a refresh runs
 * under a row lock) and authenticates only with HTTP Basic, while LinkedIn, Meta, Threads and TikTok take the
 * secret in the body. arctic's OAuth2Tokens reads the answers.
 */

/** What the platform granted. `expiresInSeconds` is turned into a time by the database's clock where it is stored. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  expiresInSeconds: number | null;
  scope?: string;
  /** The account's id as the token answer names it (Threads `user_id`, TikTok `open_id`), when it does. */
  subject?: string;
}

/** The platform refused the grant (RFC 6749 §5.2 on 400/401): the user must connect again. */
export class GrantRefused extends Error {
  constructor(
    readonly code: string,
    readonly httpStatus: number,
  ) {
    super(`The platform refused the grant (${code}).`);
    this.name = "GrantRefused";
  }
}

function tokenSet(data: object, previousRefresh?: string): TokenSet {
  const tokens = new OAuth2Tokens(data);
  const raw = data as Record<string, unknown>;
  const subject = raw.user_id ?? raw.open_id;
  return {
    access_token: tokens.accessToken(),
    // A platform that does not rotate refresh tokens answers without one: the old one stays good.
    refresh_token: tokens.hasRefreshToken() ? tokens.refreshToken() : previousRefresh,
    expiresInSeconds: typeof raw.expires_in === "number" ? raw.expires_in : null,
    scope: tokens.hasScopes() ? (raw.scope as string) : undefined,
    subject: typeof subject === "string" || typeof subject === "number" ? String(subject) : undefined,
  };
}

/** The OAuth error code of a refusal: RFC 6749's `error` string, or the Graph API's `error.type`. */
function errorCode(body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error.slice(0, 60);
  const type = (error as { type?: unknown } | undefined)?.type;
  return typeof type === "string" ? type.slice(0, 60) : "invalid_grant";
}

async function send(
  url: string,
  init: { method: "GET" | "POST"; form?: URLSearchParams; basic?: string },
  allowPrivateUrls: boolean,
  previousRefresh?: string,
) {
  const res = await providerFetch(url, {
    method: init.method,
    headers: {
      accept: "application/json",
      "user-agent": "Herald/1",
      ...(init.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      ...(init.basic ? { authorization: `Basic ${init.basic}` } : {}),
    },
    body: init.form?.toString(),
    allowPrivateUrls,
    timeoutMs: 10_000,
  });
  const body = await readJson<object>(res);
  if (res.ok && body && typeof body === "object") {
    try {
      return tokenSet(body, previousRefresh);
    } catch {
      throw new ProviderError("The platform's token answer has no access token.", { kind: "unknown", code: "bad_token_answer", retryable: false });
    }
  }
  if (res.status === 400 || res.status === 401) throw new GrantRefused(errorCode(body), res.status);
  throw errorFromResponse(res, { providerName: "The platform's token endpoint" });
}

const basicOf = (id: string, secret: string) => btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`);

/** A token request to the platform's token endpoint, the client authenticated as the platform wants. */
function tokenRequest(cfg: OAuthConfig, form: URLSearchParams, allowPrivateUrls: boolean, previousRefresh?: string) {
  if (cfg.spec.clientAuth === "body") {
    form.set(cfg.spec.clientIdParam, cfg.clientId);
    form.set("client_secret", cfg.clientSecret);
    return send(cfg.endpoints.token, { method: "POST", form }, allowPrivateUrls, previousRefresh);
  }
  return send(cfg.endpoints.token, { method: "POST", form, basic: basicOf(cfg.clientId, cfg.clientSecret) }, allowPrivateUrls, previousRefresh);
}

/** RFC 6749 §4.1.3: the code (and PKCE verifier) for tokens; a short-lived Threads or Meta token then becomes a long-lived one. */
export async function exchangeCode(
  cfg: OAuthConfig,
  code: string,
  codeVerifier: string | null,
  redirectUri: string,
  allowPrivateUrls: boolean,
): Promise<TokenSet> {
  const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri });
  if (codeVerifier) form.set("code_verifier", codeVerifier);
  const short = await tokenRequest(cfg, form, allowPrivateUrls);
  if (!cfg.endpoints.exchange) return short;
  const url = new URL(cfg.endpoints.exchange);
  url.search = new URLSearchParams(
    cfg.spec.longLivedGrant === "fb_exchange_token"
      ? { grant_type: "fb_exchange_token", client_id: cfg.clientId, client_secret: cfg.clientSecret, fb_exchange_token: short.access_token }
      : { grant_type: "th_exchange_token", client_secret: cfg.clientSecret, access_token: short.access_token },
  ).toString();
  const long = await send(url.toString(), { method: "GET" }, allowPrivateUrls);
  return { ...long, subject: long.subject ?? short.subject };
}

/** A new access token for stored credentials, the way the platform renews them; GrantRefused when it will not. */
export async function renewTokens(cfg: OAuthConfig, credentials: Record<string, string>, allowPrivateUrls: boolean): Promise<TokenSet> {
  if (cfg.spec.refresh === "th_refresh_token" && cfg.endpoints.refresh) {
    const url = new URL(cfg.endpoints.refresh);
    url.search = new URLSearchParams({ grant_type: "th_refresh_token", access_token: credentials.access_token ?? "" }).toString();
    return send(url.toString(), { method: "GET" }, allowPrivateUrls);
  }
  if (cfg.spec.refresh !== "refresh_token" || !credentials.refresh_token) throw new GrantRefused("no_refresh_token", 400);
  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: credentials.refresh_token });
  return tokenRequest(cfg, form, allowPrivateUrls, credentials.refresh_token);
}
