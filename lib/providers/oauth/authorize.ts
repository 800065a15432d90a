import { CodeChallengeMethod, OAuth2Client } from "arctic";
import type { OAuthConfig } from "./spec";

/**
 * The URL the browser is sent to (RFC 6749 §4.1.1), built by arctic's generic OAuth2Client on the endpoint the
 * settings give; PKCE S256 (RFC 7636) where the platform's row says so. Platform quirks from the row: comma-joined
 * scopes (Meta, TikTok), TikTok's `client_key`, Google's `access_type=offline`.
 */
export function authorizationUrl(cfg: OAuthConfig, state: string, codeVerifier: string | null, callbackUrl: string): string {
  const client = new OAuth2Client(cfg.clientId, cfg.clientSecret, callbackUrl);
  const spaced = cfg.spec.scopeSeparator === " " ? [...cfg.spec.scopes] : [];
  const url =
    cfg.spec.pkce && codeVerifier
      ? client.createAuthorizationURLWithPKCE(cfg.endpoints.authorize, state, CodeChallengeMethod.S256, codeVerifier, spaced)
      : client.createAuthorizationURL(cfg.endpoints.authorize, state, spaced);
  if (cfg.spec.scopeSeparator === ",") url.searchParams.set("scope", cfg.spec.scopes.join(","));
  if (cfg.spec.clientIdParam !== "client_id") {
    url.searchParams.delete("client_id");
    url.searchParams.set(cfg.spec.clientIdParam, cfg.clientId);
  }
  for (const [key, value] of Object.entries(cfg.spec.extraAuthorizeParams ?? {})) url.searchParams.set(key, value);
  return url.toString();
}
