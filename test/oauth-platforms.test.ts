import { describe, expect, it } from "vitest";
import { authorizationUrl } from "../lib/providers/oauth/authorize";
import { type OAuthConfig, onBase } from "../lib/providers/oauth/spec";
import { OAUTH_PLATFORMS } from "../lib/providers/oauth/platforms";
import { checkValue, findSetting, NETWORK_ORIGINS, type OAuthNetwork } from "../lib/settings";

/**
 * The per-platform OAuth facts as the authorization URL carries them (lib/providers/oauth/platforms.ts,
 * authorize.ts), and the base-URL settings' checks: pure functions, no server.
 */

const configOf = (platform: OAuthNetwork, authBase?: string): OAuthConfig => {
  const spec = OAUTH_PLATFORMS[platform];
  return {
    platform,
    spec,
    clientId: "cid",
    clientSecret: "secret",
    apiBase: NETWORK_ORIGINS[platform].api,
    endpoints: { authorize: onBase(spec.authorizeUrl, authBase), token: onBase(spec.tokenUrl, authBase) },
  };
};

const urlOf = (platform: OAuthNetwork, authBase?: string) =>
  new URL(authorizationUrl(configOf(platform, authBase), "the-state", OAUTH_PLATFORMS[platform].pkce ? "v".repeat(43) : null, "https://herald.example/cb"));

describe("authorization URLs", () => {
  it("X: its own endpoint, PKCE S256, space-separated scopes with offline.access", () => {
    const url = urlOf("x");
    expect(url.origin + url.pathname).toBe("https://x.com/i/oauth2/authorize");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: "cid",
      redirect_uri: "https://herald.example/cb",
      state: "the-state",
      code_challenge_method: "S256",
      scope: "tweet.read tweet.write users.read offline.access media.write",
    });
    // RFC 7636 appendix B: S256 of the verifier, base64url without padding.
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("LinkedIn: no PKCE for a web app; Threads: comma-separated scopes", () => {
    const linkedin = urlOf("linkedin");
    expect(linkedin.origin + linkedin.pathname).toBe("https://www.linkedin.com/oauth/v2/authorization");
    expect(linkedin.searchParams.has("code_challenge")).toBe(false);
    expect(linkedin.searchParams.get("scope")).toBe("openid profile w_member_social");
    expect(urlOf("threads").searchParams.get("scope")).toBe("threads_basic,threads_content_publish,threads_manage_insights");
  });

  it("TikTok names the client client_key; Google asks for offline access", () => {
    const tiktok = urlOf("tiktok");
    expect(tiktok.searchParams.get("client_key")).toBe("cid");
    expect(tiktok.searchParams.has("client_id")).toBe(false);
    expect(tiktok.searchParams.get("code_challenge_method")).toBe("S256");
    const youtube = urlOf("youtube");
    expect(youtube.origin + youtube.pathname).toBe("https://accounts.google.com/o/oauth2/v2/auth");
    expect(youtube.searchParams.get("access_type")).toBe("offline");
  });

  it("an auth base setting replaces the origin and keeps the documented path (a stand-in under a prefix)", () => {
    expect(onBase("https://x.com/i/oauth2/authorize", "http://127.0.0.1:9000/x/")).toBe("http://127.0.0.1:9000/x/i/oauth2/authorize");
    expect(onBase("https://api.x.com/2/oauth2/token", undefined)).toBe("https://api.x.com/2/oauth2/token");
    expect(urlOf("x", "http://127.0.0.1:9000").toString()).toMatch(/^http:\/\/127\.0\.0\.1:9000\/i\/oauth2\/authorize\?/);
  });
});

describe("networks settings", () => {
  it("exist for every OAuth platform, the secret sealed", () => {
    for (const platform of Object.keys(OAUTH_PLATFORMS)) {
      for (const suffix of ["client_id", "client_secret", "api_base", "auth_base"]) expect(findSetting(`${platform}_${suffix}`)?.group).toBe("networks");
      expect(findSetting(`${platform}_client_secret`)).toMatchObject({ secret: true, live: true });
    }
  });

  it("a base URL is the platform's own origin unless ALLOW_PRIVATE_URLS=true", () => {
    const api = findSetting("x_api_base")!;
    const auth = findSetting("x_auth_base")!;
    expect(checkValue(api, "https://api.x.com")).toBeNull();
    expect(checkValue(auth, "https://x.com")).toBeNull();
    expect(checkValue(api, "https://evil.example")).toMatch(/X's own/);
    expect(checkValue(auth, "http://127.0.0.1:9000/x")).toMatch(/ALLOW_PRIVATE_URLS/);
    expect(checkValue(auth, "http://127.0.0.1:9000/x", { allowPrivateUrls: true })).toBeNull();
    expect(checkValue(api, "http://127.0.0.1:9000/x?debug=1", { allowPrivateUrls: true })).toMatch(/query/);
  });
});
