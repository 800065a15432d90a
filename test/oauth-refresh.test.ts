import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboundEvents, socialAccounts } from "../db/schema";
import type { Env } from "../lib/env";
import { accountContext } from "../lib/accounts/account-context";
import { freshCredentials } from "../lib/accounts/fresh-credentials";
import { ProviderError } from "../lib/providers/types";
import { decryptJson } from "../lib/secrets";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { clientWithEnv, expectData } from "./helpers/typed";
import { type OAuthAuthority, startOAuthServer } from "./peers/oauth-server";
import { startXApi } from "./peers/x-api";

/**
 * Token refresh in one place (lib/accounts/fresh-credentials.ts, CONTRACT §9): an expiring access token
 * is refreshed once however many callers need it at the same moment, and a refused refresh marks the account
 * reconnect_required, emits account.reconnect_required and ends the delivery with recovery_action
 * "reconnect_account". Against the OAuth 2.0 stand-in (rotating refresh tokens, a slow refresh so concurrent
 * callers overlap) and the X API stand-in.
 */

type User = Awaited<ReturnType<typeof newUser>>;
let xApi: Awaited<ReturnType<typeof startXApi>>;
let oauth: OAuthAuthority & { url: string; close(): Promise<void> };
let xUser: { id: string };
let owner: User;
let ENV: Record<string, string>;
let workerEnv: Env;

beforeAll(async () => {
  xApi = await startXApi();
  xUser = xApi.addAccount("refresh_x");
  oauth = await startOAuthServer({
    clientId: "x-client",
    clientSecret: "x-secret",
    paths: { authorize: "/i/oauth2/authorize", token: "/2/oauth2/token" },
    clientAuth: "basic",
    requirePkce: true,
    refreshDelayMs: 250,
    onIssue: (token) => xApi.issueToken(xUser.id, token),
  });
  ENV = {
    PUBLIC_BASE_URL: "http://herald.test",
    ALLOW_PRIVATE_URLS: "true",
    X_CLIENT_ID: "x-client",
    X_CLIENT_SECRET: "x-secret",
    X_AUTH_BASE: oauth.url,
    X_API_BASE: xApi.url,
  };
  workerEnv = { ...env, ...ENV };
  owner = await newUser();
});

afterAll(async () => {
  await oauth?.close();
  await xApi?.stop();
});

/** A workspace with an X account connected through the OAuth flow, as a browser does it. */
async function connected() {
  const workspaceId = await newWorkspace(owner);
  const api = clientWithEnv(owner.token, ENV);
  const started = expectData(
    await api.POST("/accounts/connect/{platform}/start", { params: { path: { platform: "x" } }, body: { workspace_id: workspaceId } }),
    201,
  );
  const approved = await fetch(started.authorization_url, { redirect: "manual" });
  const back = new URL(approved.headers.get("location")!);
  const done = await clientWithEnv(undefined, ENV).GET("/accounts/connect/{platform}/callback", {
    params: { path: { platform: "x" }, query: Object.fromEntries(back.searchParams) },
    redirect: "manual",
  });
  const accountId = new URL(done.response.headers.get("location")!).searchParams.get("account_id")!;
  expect(accountId).toMatch(/^acc_/);
  return { workspaceId, accountId, api };
}

const rowOf = (id: string) => withDb(async (db) => (await db.select().from(socialAccounts).where(eq(socialAccounts.id, id)))[0]);
const tokensOf = async (id: string) => decryptJson<Record<string, string>>(env.INSTANCE_SECRET_KEY!, (await rowOf(id)).credentialsCiphertext!);
/** Herald's copy of the token is past its expiry (the platform's may not be): the next use must refresh. */
const expireAtHerald = (id: string) =>
  withDb((db) =>
    db
      .update(socialAccounts)
      .set({ tokenExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(socialAccounts.id, id)),
  );

describe("refresh", () => {
  it("a token far from expiry is used as it is: no refresh", async () => {
    const { accountId } = await connected();
    const before = oauth.refreshCount;
    const fresh = await withDb((db) => freshCredentials(db, workerEnv, { id: accountId, platform: "x" }));
    expect(fresh.credentials.access_token).toBe((await tokensOf(accountId)).access_token);
    expect(fresh.apiBase).toBe(xApi.url);
    expect(oauth.refreshCount).toBe(before);
  });

  it("five callers needing a refresh at once: the platform sees one refresh and every caller the new token", async () => {
    const { accountId } = await connected();
    const old = await tokensOf(accountId);
    await expireAtHerald(accountId);
    const before = oauth.refreshCount;
    const row = await rowOf(accountId);
    // Each on its own connection, as five deliveries on five Workers would be.
    const contexts = await Promise.all(Array.from({ length: 5 }, () => withDb((db) => accountContext(workerEnv, row, db))));
    expect(oauth.refreshCount - before).toBe(1);
    const tokens = new Set(contexts.map((c) => c.credentials.access_token));
    expect(tokens.size).toBe(1);
    const [token] = tokens;
    expect(token).not.toBe(old.access_token);
    expect(contexts[0].instanceUrl).toBe(xApi.url);
    const after = await rowOf(accountId);
    expect(after.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 60 * 60_000);
    expect(after.tokenRefreshedAt).not.toBeNull();
    const stored = await tokensOf(accountId);
    expect(stored.access_token).toBe(token);
    // The rotated refresh token was stored: the next refresh works (the old one would be invalid_grant).
    expect(stored.refresh_token).not.toBe(old.refresh_token);
    await expireAtHerald(accountId);
    await withDb((db) => freshCredentials(db, workerEnv, { id: accountId, platform: "x" }));
    expect(oauth.refreshCount - before).toBe(2);
    expect((await rowOf(accountId)).status).toBe("active");
  });

  it("a refused refresh marks the account reconnect_required and emits account.reconnect_required; later calls fail at once", async () => {
    const { accountId, workspaceId, api } = await connected();
    const hook = await api.POST("/webhook-endpoints", {
      body: { workspace_id: workspaceId, url: "http://127.0.0.1:9/hooks", events: ["account.reconnect_required"] },
    });
    expect(hook.response.status, JSON.stringify(hook.error)).toBe(201);
    await expireAtHerald(accountId);
    oauth.refuseRefreshes(true);
    try {
      const err = await withDb((db) => freshCredentials(db, workerEnv, { id: accountId, platform: "x" })).catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.info).toMatchObject({ kind: "authentication", code: "refresh_refused", retryable: false });
      expect((await rowOf(accountId)).status).toBe("reconnect_required");
      const events = await withDb((db) =>
        db
          .select()
          .from(outboundEvents)
          .where(and(eq(outboundEvents.workspaceId, workspaceId), eq(outboundEvents.type, "account.reconnect_required"))),
      );
      expect(events.map((e) => e.data)).toEqual([{ account_id: accountId, platform: "x", status: "reconnect_required" }]);
      const listed = expectData(await api.GET("/accounts", { params: { query: { workspace_id: workspaceId } } }));
      expect(listed.find((a) => a.id === accountId)?.status).toBe("reconnect_required");

      // A profile read of the account is a 422 naming the platform, not a crash.
      const reread = await api.POST("/accounts/{account_id}/refresh-metadata", { params: { path: { account_id: accountId } } });
      expect(reread.response.status).toBe(422);
      expect(reread.error?.detail).toMatch(/X \(Twitter\) refused/);

      const count = oauth.refreshCount;
      const again = await withDb((db) => freshCredentials(db, workerEnv, { id: accountId, platform: "x" })).catch((e) => e);
      expect(again.info).toMatchObject({ kind: "authentication", code: "reconnect_required" });
      expect(oauth.refreshCount).toBe(count);
    } finally {
      oauth.refuseRefreshes(false);
    }
  });

  it("a delivery whose refresh is refused fails with recovery_action reconnect_account; nothing is posted", async () => {
    const { accountId, workspaceId, api } = await connected();
    await expireAtHerald(accountId);
    oauth.refuseRefreshes(true);
    try {
      const created = expectData(
        await api.POST("/publications", {
          body: {
            workspace_id: workspaceId,
            source_text: "hello",
            destinations: [{ social_account_id: accountId, segments: [{ body: "Hello from Herald" }] }],
          },
        }),
        201,
      );
      const started = await api.POST("/publications/{id}/publish-now", { params: { path: { id: created.id } }, body: { expected_revision: created.revision } });
      expect(started.response.status, JSON.stringify(started.error)).toBe(202);
      await runPipeline(created.id, { env: workerEnv });
      const publication = expectData(await api.GET("/publications/{id}", { params: { path: { id: created.id } } }));
      expect(publication.renditions[0]).toMatchObject({ status: "failed", delivery: { recovery_action: "reconnect_account" } });
      expect(xApi.postsOf(xUser.id).filter((p) => p.posted === "Hello from Herald")).toEqual([]);
      expect((await rowOf(accountId)).status).toBe("reconnect_required");
    } finally {
      oauth.refuseRefreshes(false);
    }
  });

  it("a token the platform refuses when publishing (revoked) marks the account reconnect_required with the failure, emits the event once, and the next delivery fails without calling the platform", async () => {
    const { accountId, workspaceId, api } = await connected();
    const hook = await api.POST("/webhook-endpoints", {
      body: { workspace_id: workspaceId, url: "http://127.0.0.1:9/hooks", events: ["account.reconnect_required"] },
    });
    expect(hook.response.status, JSON.stringify(hook.error)).toBe(201);
    xApi.expireTokensOf(xUser.id);
    const publish = async (body: string) => {
      const created = expectData(
        await api.POST("/publications", {
          body: { workspace_id: workspaceId, source_text: body, destinations: [{ social_account_id: accountId, segments: [{ body }] }] },
        }),
        201,
      );
      const started = await api.POST("/publications/{id}/publish-now", { params: { path: { id: created.id } }, body: { expected_revision: created.revision } });
      expect(started.response.status, JSON.stringify(started.error)).toBe(202);
      await runPipeline(created.id, { env: workerEnv });
      return expectData(await api.GET("/publications/{id}", { params: { path: { id: created.id } } })).renditions[0];
    };
    const first = await publish("Refused by a revoked token");
    expect(first).toMatchObject({ status: "failed", error_kind: "authentication", delivery: { recovery_action: "reconnect_account" } });
    expect((await rowOf(accountId)).status).toBe("reconnect_required");
    const events = () =>
      withDb((db) =>
        db
          .select()
          .from(outboundEvents)
          .where(and(eq(outboundEvents.workspaceId, workspaceId), eq(outboundEvents.type, "account.reconnect_required"))),
      );
    expect((await events()).map((e) => e.data)).toEqual([{ account_id: accountId, platform: "x", status: "reconnect_required" }]);

    const requests = xApi.postRequests.length;
    const second = await publish("Not sent until reconnected");
    expect(second).toMatchObject({ status: "failed", delivery: { recovery_action: "reconnect_account" } });
    expect(xApi.postRequests.length).toBe(requests);
    expect(await events()).toHaveLength(1);
  });
});
