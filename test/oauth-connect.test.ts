import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, oauthStates, socialAccounts, workspaceMembers } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { decryptJson } from "../lib/secrets";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { clientWithEnv, expectData, expectProblem } from "./helpers/typed";
import { type OAuthAuthority, startOAuthServer } from "./peers/oauth-server";
import { startXApi } from "./peers/x-api";

/**
 * OAuth connection (CONTRACT §9): POST /accounts/connect/{platform}/start and the public callback, for X against
 * a generic OAuth 2.0 authorization server stand-in (test/peers/oauth-server.ts, at X's documented paths, PKCE
 * required, HTTP Basic client authentication) and the X API stand-in (test/peers/x-api.ts) for the profile.
 * The settings are environment variables of the Worker (they win over saved values), so nothing is shared.
 */

type User = Awaited<ReturnType<typeof newUser>>;
type Authority = OAuthAuthority & { url: string; close(): Promise<void> };
let xApi: Awaited<ReturnType<typeof startXApi>>;
let oauth: Authority;
let xUser: { id: string; username: string };
let owner: User, admin: User, editor: User, viewer: User, outsider: User;
let ws: string;
let otherWs: string;
let ENV: Record<string, string>;
const PUBLIC = "http://herald.test";

beforeAll(async () => {
  xApi = await startXApi();
  xUser = xApi.addAccount("alice_x");
  oauth = await startOAuthServer({
    clientId: "x-client",
    clientSecret: "x-secret",
    paths: { authorize: "/i/oauth2/authorize", token: "/2/oauth2/token" },
    clientAuth: "basic",
    requirePkce: true,
    onIssue: (token) => xApi.issueToken(xUser.id, token),
  });
  ENV = {
    PUBLIC_BASE_URL: PUBLIC,
    ALLOW_PRIVATE_URLS: "true",
    X_CLIENT_ID: "x-client",
    X_CLIENT_SECRET: "x-secret",
    X_AUTH_BASE: oauth.url,
    X_API_BASE: xApi.url,
  };
  [owner, admin, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  otherWs = await newWorkspace(outsider);
});

afterAll(async () => {
  await oauth?.close();
  await xApi?.stop();
});

const as = (user: User, extra: Record<string, string> = {}) => clientWithEnv(user.token, { ...ENV, ...extra });

async function start(user: User, body: { workspace_id: string; redirect_uri?: string }, platform = "x") {
  return as(user).POST("/accounts/connect/{platform}/start", { params: { path: { platform } }, body });
}

/** The platform's authorize endpoint, "clicked": where it sends the browser back (Herald's callback with code and state). */
async function approve(authorizationUrl: string): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location")!);
}

/** Start, then the platform's approval: the callback's query. */
const approvedQuery = async (user: User, workspaceId: string) =>
  Object.fromEntries((await approve(expectData(await start(user, { workspace_id: workspaceId }), 201).authorization_url)).searchParams);

/** Herald's callback as the browser reaches it: no token. Answers the status and the Location. */
async function callback(query: Record<string, string>, platform = "x") {
  const res = await clientWithEnv(undefined, ENV).GET("/accounts/connect/{platform}/callback", {
    params: { path: { platform }, query },
    redirect: "manual",
  });
  const location = res.response.headers.get("location");
  return { status: res.response.status, location: location ? new URL(location) : null, error: res.error };
}

const accountsOf = (workspaceId: string) =>
  withDb((db) =>
    db
      .select()
      .from(socialAccounts)
      .where(and(eq(socialAccounts.workspaceId, workspaceId), eq(socialAccounts.platform, "x"))),
  );

/** A fresh workspace of `owner` with no X account yet. */
const freshWorkspace = () => newWorkspace(owner, [{ id: admin.id, role: "admin" }]);

describe("start → authorize → callback", () => {
  it("stores the account with sealed tokens and redirects with account_id; nothing secret in any answer", async () => {
    const workspace = await freshWorkspace();
    const started = expectData(await start(admin, { workspace_id: workspace, redirect_uri: `${PUBLIC}/settings/accounts?tab=x` }), 201);
    expect(Date.parse(started.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(started.expires_at) - Date.now()).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    const authorize = new URL(started.authorization_url);
    expect(authorize.origin + authorize.pathname).toBe(`${oauth.url}/i/oauth2/authorize`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("scope")).toBe("tweet.read tweet.write users.read offline.access media.write");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PUBLIC}/accounts/connect/x/callback`);
    expect(authorize.searchParams.get("state")).toBe(started.state);

    const back = await approve(started.authorization_url);
    expect(back.origin + back.pathname).toBe(`${PUBLIC}/accounts/connect/x/callback`);
    const done = await callback(Object.fromEntries(back.searchParams));
    expect(done.status).toBe(302);
    expect(done.location!.origin + done.location!.pathname).toBe(`${PUBLIC}/settings/accounts`);
    expect(done.location!.searchParams.get("tab")).toBe("x");
    expect(done.location!.searchParams.get("error")).toBeNull();
    const accountId = done.location!.searchParams.get("account_id")!;
    // The verifier went to the token endpoint (the stand-in checked it against the challenge).
    expect(oauth.lastTokenRequest?.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const [row] = await accountsOf(workspace);
    expect(row.id).toBe(accountId);
    expect(row).toMatchObject({ username: "alice_x", externalAccountId: xUser.id, status: "active", instanceUrl: xApi.url });
    expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 60 * 60_000);
    const credentials = await decryptJson<Record<string, string>>(env.INSTANCE_SECRET_KEY!, row.credentialsCiphertext!);
    expect(credentials.access_token).toMatch(/^at_/);
    expect(credentials.refresh_token).toMatch(/^rt_/);
    expect(row.credentialsCiphertext).not.toContain(credentials.access_token);
    expect(row.credentialsCiphertext).not.toContain("access_token");

    const listed = await as(admin).GET("/accounts", { params: { query: { workspace_id: workspace } } });
    const account = expectData(listed).find((a) => a.id === accountId)!;
    expect(account).toMatchObject({ platform: "x", status: "active", account_username: "alice_x", account_id: xUser.id });
    const text = JSON.stringify(listed.data);
    expect(text).not.toContain(credentials.access_token);
    expect(text).not.toContain(credentials.refresh_token);

    const [event] = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, accountId)));
    expect(event).toMatchObject({ action: "account.connect", actorUserId: admin.id, workspaceId: workspace });
    // The state is gone: single use.
    const states = await withDb((db) => db.select().from(oauthStates).where(eq(oauthStates.workspaceId, workspace)));
    expect(states).toEqual([]);
  });

  it("without redirect_uri, lands on PUBLIC_BASE_URL; connecting the same X account again reconnects it", async () => {
    const workspace = await freshWorkspace();
    const first = await callback(await approvedQuery(admin, workspace));
    expect(first.location!.origin + first.location!.pathname).toBe(`${PUBLIC}/`);
    const id = first.location!.searchParams.get("account_id");
    await withDb((db) => db.update(socialAccounts).set({ status: "reconnect_required" }).where(eq(socialAccounts.id, id!)));
    const again = await callback(await approvedQuery(admin, workspace));
    expect(again.location!.searchParams.get("account_id")).toBe(id);
    const rows = await accountsOf(workspace);
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe("active");
  });
});

describe("a callback that must not store anything", () => {
  it("a forged state → 400, no account", async () => {
    const workspace = await freshWorkspace();
    await start(admin, { workspace_id: workspace });
    const res = await callback({ code: "code_forged", state: "forged-state-value" });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(await accountsOf(workspace)).toEqual([]);
  });

  it("a replayed state → 400 the second time; two concurrent callbacks with one state: exactly one stores", async () => {
    const workspace = await freshWorkspace();
    const back = await approve(expectData(await start(admin, { workspace_id: workspace }), 201).authorization_url);
    const query = Object.fromEntries(back.searchParams);
    const both = await Promise.all([callback(query), callback(query)]);
    expect(both.map((r) => r.status).sort()).toEqual([302, 400]);
    const replay = await callback(query);
    expect(replay.status).toBe(400);
    expect(await accountsOf(workspace)).toHaveLength(1);
  });

  it("an expired state (10 minutes by the database's clock) → ?error=state_expired, no account", async () => {
    const workspace = await freshWorkspace();
    const started = expectData(await start(admin, { workspace_id: workspace, redirect_uri: `${PUBLIC}/done` }), 201);
    const back = await approve(started.authorization_url);
    const hash = await sha256Hex(started.state);
    await withDb((db) => db.update(oauthStates).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(oauthStates.stateHash, hash)));
    const res = await callback(Object.fromEntries(back.searchParams));
    expect(res.status).toBe(302);
    expect(res.location!.pathname).toBe("/done");
    expect(res.location!.searchParams.get("error")).toBe("state_expired");
    expect(res.location!.searchParams.get("account_id")).toBeNull();
    expect(await accountsOf(workspace)).toEqual([]);
  });

  it("a state started for X at another platform's callback → ?error=platform_mismatch; the state is spent", async () => {
    const workspace = await freshWorkspace();
    const back = await approve(expectData(await start(admin, { workspace_id: workspace }), 201).authorization_url);
    const query = Object.fromEntries(back.searchParams);
    const res = await callback(query, "linkedin");
    expect(res.location!.searchParams.get("error")).toBe("platform_mismatch");
    expect((await callback(query)).status).toBe(400);
    expect(await accountsOf(workspace)).toEqual([]);
  });

  it("the platform's error=access_denied → ?error=access_denied, no account, no token request", async () => {
    const workspace = await freshWorkspace();
    oauth.denyNext();
    const exchanges = oauth.exchangeCount;
    const back = await approve(expectData(await start(admin, { workspace_id: workspace }), 201).authorization_url);
    expect(back.searchParams.get("error")).toBe("access_denied");
    const res = await callback(Object.fromEntries(back.searchParams));
    expect(res.location!.searchParams.get("error")).toBe("access_denied");
    expect(oauth.exchangeCount).toBe(exchanges);
    expect(await accountsOf(workspace)).toEqual([]);
  });

  it("a user who is no longer an admin of the workspace when the browser comes back → ?error=forbidden", async () => {
    const demoted = await newUser();
    const workspace = await newWorkspace(owner, [{ id: demoted.id, role: "admin" }]);
    const back = await approve(expectData(await start(demoted, { workspace_id: workspace }), 201).authorization_url);
    await withDb((db) =>
      db
        .update(workspaceMembers)
        .set({ role: "editor" })
        .where(and(eq(workspaceMembers.workspaceId, workspace), eq(workspaceMembers.userId, demoted.id))),
    );
    const res = await callback(Object.fromEntries(back.searchParams));
    expect(res.location!.searchParams.get("error")).toBe("forbidden");
    expect(await accountsOf(workspace)).toEqual([]);
  });

  it("a code the platform refuses → ?error=token_exchange_refused, no account", async () => {
    const workspace = await freshWorkspace();
    const back = await approve(expectData(await start(admin, { workspace_id: workspace }), 201).authorization_url);
    const res = await callback({ ...Object.fromEntries(back.searchParams), code: "code_not_issued" });
    expect(res.location!.searchParams.get("error")).toBe("token_exchange_refused");
    expect(await accountsOf(workspace)).toEqual([]);
  });

  it("an unknown platform at the callback → 404", async () => {
    expect((await callback({ state: "x" }, "myspace")).status).toBe(404);
  });
});

describe("start", () => {
  it("redirect_uri on another origin → 422 naming it; nothing stored", async () => {
    for (const redirect_uri of ["https://evil.example/back", "http://herald.test.evil.example/", "javascript:alert(1)", "/relative"]) {
      const res = await start(admin, { workspace_id: ws, redirect_uri });
      expect(expectProblem(res, 422, "validation-error").errors?.map((e) => e.location)).toEqual(["body.redirect_uri"]);
    }
  });

  it("a platform without client id and secret → 409 provider-not-configured; the provider list says configured: false", async () => {
    const unconfigured = clientWithEnv(admin.token, { ...ENV, X_CLIENT_SECRET: "" });
    const res = await unconfigured.POST("/accounts/connect/{platform}/start", { params: { path: { platform: "x" } }, body: { workspace_id: ws } });
    expectProblem(res, 409, "provider-not-configured");
    const listed = expectData(await unconfigured.GET("/accounts/providers", { params: { query: {} } }));
    const x = listed.find((p) => p.platform === "x")!;
    expect(x.configured).toBe(false);
    expect(x.readiness.blockers.map((b) => b.code)).toContain("provider_not_configured");
    const configured = expectData(await as(admin).GET("/accounts/providers", { params: { query: {} } }));
    expect(configured.find((p) => p.platform === "x")).toMatchObject({ configured: true, readiness: { state: "ready", connectable: true } });
  });

  it("lists every platform with its limits; TikTok and YouTube are built (issue 29)", async () => {
    const listed = expectData(await as(viewer).GET("/accounts/providers", { params: { query: { workspace_id: ws } } }));
    expect(listed.map((p) => p.platform).sort()).toEqual(
      ["bluesky", "discord", "facebook", "instagram", "linkedin", "mastodon", "threads", "tiktok", "webhook", "x", "youtube"].sort(),
    );
    expect(listed.find((p) => p.platform === "x")!.limits).toMatchObject({ text_limit: 280, threads: true });
    const discord = listed.find((p) => p.platform === "discord")!;
    expect(discord).toMatchObject({ configured: true, limits: { text_limit: 2000 } });
    for (const platform of ["tiktok", "youtube"]) {
      const video = listed.find((p) => p.platform === platform)!;
      expect(video.limits).toMatchObject({ media_max_count: 1, media_kinds: ["video"], threads: false });
      expect(video.readiness.state).not.toBe("not_implemented");
      expect(video.readiness.blockers.map((b) => b.code)).not.toContain("not_implemented");
    }
  });

  it("an unknown platform → 404; a platform connected with POST /accounts → 422", async () => {
    expectProblem(await start(admin, { workspace_id: ws }, "myspace"), 404, "not-found");
    expectProblem(await start(admin, { workspace_id: ws }, "mastodon"), 422, "validation-error");
  });

  it("viewer and editor → 403; a workspace the caller is not in → 404", async () => {
    expectProblem(await start(viewer, { workspace_id: ws }), 403, "forbidden");
    expectProblem(await start(editor, { workspace_id: ws }), 403, "forbidden");
    expectProblem(await start(admin, { workspace_id: otherWs }), 404, "not-found");
  });
});
