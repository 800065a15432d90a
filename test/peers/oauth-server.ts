import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * A TEST DOUBLE of an OAuth 2.0 authorization server, written from RFC 6749 (the authorization code and
 * refresh token grants, §4.1 and §6, error answers §5.2, client authentication §2.3.1: HTTP Basic or the
 * client's id and secret in the form body), RFC 7636 (PKCE, S256 and plain) and the token endpoints the
 * platforms document (X docs.x.com "OAuth 2.0 Authorization Code Flow with PKCE"; LinkedIn "Authorization Code
 * Flow"; TikTok "Login Kit: Manage User Access Tokens", which names the client `client_key`; Google "Using
 * OAuth 2.0 for Web Server Applications"; Threads "Get Access Tokens" and "Long-Lived Tokens", whose
 * th_exchange_token and th_refresh_token are GETs with the token in the query). No platform's real
 * authorization server can run here.
 *
 * Paths below are the defaults; `paths` sets each platform's own (see OAuthServerOptions).
 * - GET <prefix>/oauth/authorize?response_type=code&client_id&redirect_uri&state[&code_challenge&
 *   code_challenge_method] → 302 to redirect_uri with `code` and `state` (as if the user approved at once), or
 *   with `error=access_denied` after `denyNext()`. A test "clicks" it by fetching the authorization URL with
 *   `redirect: "manual"` and following the Location itself.
 * - POST <prefix>/oauth/token (application/x-www-form-urlencoded):
 *   `grant_type=authorization_code` (code single use, redirect_uri must match, the PKCE verifier must match the
 *   challenge); `grant_type=refresh_token` (counted in `refreshCount`; refresh tokens rotate, so an old one is
 *   `invalid_grant`, which makes a double refresh visible). Answers `{access_token, token_type: "bearer",
 *   expires_in, refresh_token, scope}`; errors are 400/401 `{error, error_description}`.
 * - GET <prefix>/access_token?grant_type=th_exchange_token&client_secret&access_token → a long-lived token
 *   (Threads); GET <prefix>/refresh_access_token?grant_type=th_refresh_token&access_token → a fresh long-lived
 *   token (counted in `refreshCount`).
 *
 * Knobs: `accessTokenTtlSeconds` (expires_in), `refuseRefreshes(true)` (every refresh → 400 invalid_grant, as a
 * platform answers a revoked grant), `refreshDelayMs` (a slow refresh, so concurrent callers overlap), `clientAuth`
 * ("basic", "body" or "either"), `clientIdParam` ("client_key" for TikTok), `requirePkce`.
 *
 * Composing it with a platform stand-in (the token endpoints of test/peers/x-api.ts and the like):
 *   const oauth = oauthAuthority({ clientId: "cid", clientSecret: "cs", prefix: "/oauth-x", onIssue: (token, subject) => tokens.issue(token, user) });
 *   // inside the stand-in's node:http handler, before its own routes:
 *   const answer = await oauth.answer({ method, path, query, headers, body: rawBody });
 *   if (answer) return send(answer.status, answer.body, answer.headers);
 * or as a plain node:http handler: `if (await oauth.handle(req, res)) return;` (it reads the body itself), or on
 * a server of its own: `const server = await startOAuthServer({ ... }); server.url` (then x_auth_base = server.url).
 * `isValidAccessToken(token)` tells a stand-in whether a bearer token was issued and has not expired.
 */

export interface OAuthServerOptions {
  clientId: string;
  clientSecret: string;
  /** Path prefix every endpoint is under ("" by default), so it can share a server with a platform stand-in. */
  prefix?: string;
  /**
   * The endpoints' paths under the prefix, as the platform documents them (X: /i/oauth2/authorize and
   * /2/oauth2/token). Defaults: /oauth/authorize, /oauth/token, /access_token, /refresh_access_token.
   */
  paths?: { authorize?: string; token?: string; exchange?: string; refresh?: string };
  clientAuth?: "basic" | "body" | "either";
  clientIdParam?: "client_id" | "client_key";
  /** Refuse an authorization request without a PKCE S256 challenge. */
  requirePkce?: boolean;
  accessTokenTtlSeconds?: number;
  /** Whether a refresh token is issued with each access token (LinkedIn issues none to most apps). */
  issueRefreshTokens?: boolean;
  refreshDelayMs?: number;
  /** The account the authorize endpoint approves as; the token answer carries it as `user_id` (Threads does). */
  subject?: string;
  /** Called with every access token issued, so a platform stand-in can accept it as a bearer token. */
  onIssue?: (accessToken: string, subject: string) => void;
}

export interface OAuthRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer | string;
}

export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

interface Code {
  clientId: string;
  redirectUri: string | null;
  challenge: string | null;
  method: string | null;
  scope: string;
  used: boolean;
}

const token = (prefix: string) => `${prefix}_${randomBytes(18).toString("base64url")}`;
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const json = (status: number, body: unknown): OAuthAnswer => ({ status, headers: { "content-type": "application/json", "cache-control": "no-store" }, body });
const oauthError = (status: number, error: string, description: string) => json(status, { error, error_description: description });

export function oauthAuthority(options: OAuthServerOptions) {
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const paths = {
    authorize: options.paths?.authorize ?? "/oauth/authorize",
    token: options.paths?.token ?? "/oauth/token",
    exchange: options.paths?.exchange ?? "/access_token",
    refresh: options.paths?.refresh ?? "/refresh_access_token",
  };
  const idParam = options.clientIdParam ?? "client_id";
  const subject = options.subject ?? "user-1";
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, { scope: string; valid: boolean }>();
  const accessTokens = new Map<string, number>();
  let ttl = options.accessTokenTtlSeconds ?? 7200;
  let refusing = false;
  let denying = 0;
  const state = { refreshCount: 0, exchangeCount: 0, lastTokenRequest: null as URLSearchParams | null, lastAuthorization: null as URLSearchParams | null };

  function issue(scope: string, withRefresh = options.issueRefreshTokens ?? true) {
    const access = token("at");
    accessTokens.set(access, Date.now() + ttl * 1000);
    options.onIssue?.(access, subject);
    const out: Record<string, unknown> = { access_token: access, token_type: "bearer", expires_in: ttl, scope, user_id: subject };
    if (withRefresh) {
      const refresh = token("rt");
      refreshTokens.set(refresh, { scope, valid: true });
      out.refresh_token = refresh;
    }
    return out;
  }

  /** RFC 6749 §2.3.1: the client authenticates with HTTP Basic or with its id and secret in the body. */
  function clientOk(headers: http.IncomingHttpHeaders, form: URLSearchParams): boolean {
    const basic = /^Basic (.+)$/i.exec(headers.authorization ?? "")?.[1];
    const mode = options.clientAuth ?? "either";
    if (basic && mode !== "body") {
      const [id, secret] = Buffer.from(basic, "base64").toString().split(":");
      return decodeURIComponent(id) === options.clientId && decodeURIComponent(secret ?? "") === options.clientSecret;
    }
    if (mode === "basic") return false;
    return form.get(idParam) === options.clientId && form.get("client_secret") === options.clientSecret;
  }

  async function answer(req: OAuthRequest): Promise<OAuthAnswer | null> {
    if (!req.path.startsWith(`${prefix}/`)) return null;
    const path = req.path.slice(prefix.length);
    if (req.method === "GET" && path === paths.authorize) return authorize(req.query);
    if (req.method === "POST" && path === paths.token) {
      const form = new URLSearchParams(typeof req.body === "string" ? req.body : req.body.toString());
      state.lastTokenRequest = form;
      if (!clientOk(req.headers, form)) return oauthError(401, "invalid_client", "Client authentication failed");
      const grant = form.get("grant_type");
      if (grant === "authorization_code") return exchange(form);
      if (grant === "refresh_token") return refresh(form.get("refresh_token"));
      return oauthError(400, "unsupported_grant_type", `grant_type ${grant} is not supported`);
    }
    if (req.method === "GET" && path === paths.exchange) {
      if (req.query.get("grant_type") !== "th_exchange_token" || req.query.get("client_secret") !== options.clientSecret)
        return oauthError(400, "invalid_request", "Bad exchange request");
      if (!liveAccess(req.query.get("access_token"))) return oauthError(400, "invalid_grant", "Unknown or expired access token");
      return json(200, { ...pick(issue("", false), "access_token", "token_type", "expires_in") });
    }
    if (req.method === "GET" && path === paths.refresh) {
      if (req.query.get("grant_type") !== "th_refresh_token") return oauthError(400, "invalid_request", "Bad refresh request");
      state.refreshCount++;
      if (options.refreshDelayMs) await new Promise((r) => setTimeout(r, options.refreshDelayMs));
      if (refusing || !liveAccess(req.query.get("access_token"))) return oauthError(400, "invalid_grant", "The token cannot be refreshed");
      return json(200, { ...pick(issue("", false), "access_token", "token_type", "expires_in") });
    }
    return null;
  }

  function authorize(q: URLSearchParams): OAuthAnswer {
    state.lastAuthorization = q;
    const redirect = q.get("redirect_uri");
    if (!redirect) return json(400, { error: "invalid_request", error_description: "redirect_uri is required" });
    const back = new URL(redirect);
    back.searchParams.set("state", q.get("state") ?? "");
    if (q.get(idParam) !== options.clientId) {
      back.searchParams.set("error", "unauthorized_client");
    } else if (q.get("response_type") !== "code") {
      back.searchParams.set("error", "unsupported_response_type");
    } else if (options.requirePkce && q.get("code_challenge_method") !== "S256") {
      back.searchParams.set("error", "invalid_request");
    } else if (denying > 0) {
      denying--;
      back.searchParams.set("error", "access_denied");
    } else {
      const code = token("code");
      codes.set(code, {
        clientId: options.clientId,
        redirectUri: redirect,
        challenge: q.get("code_challenge"),
        method: q.get("code_challenge_method"),
        scope: q.get("scope") ?? "",
        used: false,
      });
      back.searchParams.set("code", code);
    }
    return { status: 302, headers: { location: back.toString() }, body: undefined };
  }

  function exchange(form: URLSearchParams): OAuthAnswer {
    const code = codes.get(form.get("code") ?? "");
    if (!code || code.used) return oauthError(400, "invalid_grant", "The authorization code is invalid or was used");
    code.used = true;
    if (code.redirectUri !== form.get("redirect_uri")) return oauthError(400, "invalid_grant", "redirect_uri does not match");
    if (code.challenge) {
      const verifier = form.get("code_verifier") ?? "";
      const expected = code.method === "plain" ? verifier : s256(verifier);
      if (expected !== code.challenge) return oauthError(400, "invalid_grant", "The PKCE code verifier does not match");
    }
    state.exchangeCount++;
    return json(200, issue(code.scope));
  }

  async function refresh(refreshToken: string | null): Promise<OAuthAnswer> {
    state.refreshCount++;
    if (options.refreshDelayMs) await new Promise((r) => setTimeout(r, options.refreshDelayMs));
    const known = refreshTokens.get(refreshToken ?? "");
    if (refusing || !known?.valid) return oauthError(400, "invalid_grant", "The refresh token is invalid, expired or revoked");
    known.valid = false; // rotation: each refresh token works once
    return json(200, issue(known.scope));
  }

  const liveAccess = (t: string | null) => (t ? (accessTokens.get(t) ?? 0) > Date.now() : false);

  /** A plain node:http handler: answers and returns true for its own paths, else false (the body is consumed only then). */
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://stand-in");
    if (!url.pathname.startsWith(`${prefix}/`)) return false;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const out = await answer({ method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) });
    if (!out) return false;
    res.writeHead(out.status, out.headers);
    res.end(out.body === undefined ? "" : JSON.stringify(out.body));
    return true;
  }

  return {
    answer,
    handle,
    isValidAccessToken: liveAccess,
    get refreshCount() {
      return state.refreshCount;
    },
    get exchangeCount() {
      return state.exchangeCount;
    },
    /** The last token request's form (to check what the client sent: code_verifier, client_key, …). */
    get lastTokenRequest() {
      return state.lastTokenRequest;
    },
    get lastAuthorization() {
      return state.lastAuthorization;
    },
    refuseRefreshes(on = true) {
      refusing = on;
    },
    denyNext(n = 1) {
      denying += n;
    },
    setAccessTokenTtl(seconds: number) {
      ttl = seconds;
    },
    /** Every access token issued so far stops working (as when it expires at the platform). */
    expireAccessTokens() {
      for (const t of accessTokens.keys()) accessTokens.set(t, 0);
    },
    paths: { authorize: `${prefix}${paths.authorize}`, token: `${prefix}${paths.token}` },
  };
}

export type OAuthAuthority = ReturnType<typeof oauthAuthority>;

function pick<T extends Record<string, unknown>>(o: T, ...keys: string[]) {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

/** The authority on a loopback server of its own: `url` is the base to set as `<platform>_auth_base`. */
export async function startOAuthServer(options: OAuthServerOptions) {
  const authority = oauthAuthority(options);
  const server = http.createServer(async (req, res) => {
    if (!(await authority.handle(req, res))) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "not_found" }));
    }
  });
  const listening = await listenOnLoopback(server);
  return Object.assign(authority, {
    url: `${listening.url}${(options.prefix ?? "").replace(/\/+$/, "")}`,
    close: listening.stop,
  });
}
