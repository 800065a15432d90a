import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, publications, renditions, socialAccounts } from "../db/schema";
import { PLATFORMS } from "../db/schema/accounts";
import { newId } from "../lib/ids";
import { freePort } from "../local/services/ports";
import { decryptJson } from "../lib/secrets";
import type { Middleware } from "openapi-fetch";
import type { Env } from "../lib/env";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { clientWithEnv, expectData, expectProblem, type Problem, type Schemas } from "./helpers/typed";
import { startPds, type PdsAccount, type PdsPeer } from "./peers/bluesky-pds";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * Accounts API (CONTRACT.md §4, SPEC.md 2.8 / 4.8) against real peers: a real Bluesky PDS, a webhook
 * receiver, and a Mastodon-API test double (no Mastodon server can run here; see test/peers/mastodon-server.ts).
 */

type User = Awaited<ReturnType<typeof newUser>>;
let pds: PdsPeer;
let mastodon: MastodonPeer;
let receiver: WebhookPeer;
let failing: http.Server;
let failingUrl: string;
let owner: User, admin: User, editor: User, viewer: User, outsider: User;
let ws: string;
let bsky: PdsAccount;
/** Every response body seen, to prove no credential ever comes back. */
const seen: string[] = [];

beforeAll(async () => {
  [pds, mastodon, receiver] = await Promise.all([startPds(), startMastodon(), startWebhookReceiver({ secret: "s3cret-webhook-key" })]);
  bsky = await pds.createAccount("acct");
  failing = http.createServer((_req, res) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end('{"error":"boom"}');
  });
  await new Promise<void>((r) => failing.listen(0, "127.0.0.1", r));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
  [owner, admin, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([pds?.stop(), mastodon?.stop(), receiver?.stop(), new Promise((r) => failing?.close(r))]);
});

/** Records every answer's text in `seen`. */
const record: Middleware = {
  async onResponse({ response }) {
    seen.push(await response.clone().text());
  },
};

/** The typed client as `user`, over the gateway with `envOverride` applied, recording every answer. */
function as(user: User | undefined, envOverride?: Partial<Env>) {
  const c = envOverride ? clientWithEnv(user?.token, envOverride) : client(user?.token);
  c.use(record);
  return c;
}

const connect = (body: Omit<Schemas["CreateAccountRequest"], "workspace_id">, user: User = admin, envOverride?: Partial<Env>) =>
  as(user, envOverride).POST("/accounts", { body: { workspace_id: ws, ...body } });
const listAccounts = (user: User) => as(user).GET("/accounts", { params: { query: { workspace_id: ws } } });
const disconnect = (id: string, user: User) => as(user).DELETE("/accounts/{id}", { params: { path: { id } } });
const refresh = (id: string, user: User) => as(user).POST("/accounts/{account_id}/refresh-metadata", { params: { path: { account_id: id } } });

const storedRow = (id: string) => withDb(async (db) => (await db.select().from(socialAccounts).where(eq(socialAccounts.id, id)))[0]);

describe("POST /accounts", () => {
  it("connects a webhook: 201 AccountResponse, the secret encrypted at rest and never returned", async () => {
    const res = expectData(await connect({ platform: "webhook", url: receiver.url, secret: "s3cret-webhook-key", username: "Our receiver" }), 201);
    expect(res).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/AccountResponse.json",
      platform: "webhook",
      account_username: "Our receiver",
      account_kind: "endpoint",
      slug: "webhook-our-receiver",
      is_active: true,
      messaging_supported: false,
      thread_replies_supported: false,
      limit_profile: "standard",
      provider_installation_id: null,
      shared_grant: false,
      grant_destination_count: 0,
    });
    expect(res.id).toMatch(/^acc_/);
    expect(Date.parse(res.capability_checked_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
    const row = await storedRow(res.id);
    expect(row.url).toBe(receiver.url);
    expect(row.credentialsCiphertext).toMatch(/^v1\./);
    expect(row.credentialsCiphertext).not.toContain("s3cret");
    expect(await decryptJson(env.INSTANCE_SECRET_KEY!, row.credentialsCiphertext!)).toEqual({ secret: "s3cret-webhook-key" });
    const [event] = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, res.id)));
    expect(event).toMatchObject({ action: "account.connect", actorUserId: admin.id, workspaceId: ws });
  });

  it("connects a Bluesky account against a real PDS with an app password, reading handle and DID from it", async () => {
    const res = expectData(await connect({ platform: "bluesky", identifier: bsky.handle, app_password: bsky.appPassword, instance_url: pds.url }), 201);
    expect(res).toMatchObject({
      platform: "bluesky",
      account_username: bsky.handle,
      account_id: bsky.did,
      instance_url: pds.url,
      messaging_supported: true,
      thread_replies_supported: true,
      account_kind: "personal",
      fediverse_software: null,
    });
    const row = await storedRow(res.id);
    expect(row.credentialsCiphertext).not.toContain(bsky.appPassword);
    expect(await decryptJson(env.INSTANCE_SECRET_KEY!, row.credentialsCiphertext!)).toEqual({ identifier: bsky.handle, app_password: bsky.appPassword });
    // The same Bluesky account twice in one workspace is a conflict.
    expectProblem(await connect({ platform: "bluesky", identifier: bsky.handle, app_password: bsky.appPassword, instance_url: pds.url }), 409, "conflict");
  });

  it("connects a Mastodon account: username, software from NodeInfo, canonical instance URL, text limit", async () => {
    const me = mastodon.addAccount("herald");
    const res = expectData(await connect({ platform: "mastodon", instance_url: `${mastodon.url}/some/path/`, access_token: me.token }), 201);
    expect(res).toMatchObject({
      platform: "mastodon",
      account_username: `herald@${new URL(mastodon.url).host}`,
      account_id: me.id,
      instance_url: mastodon.url,
      fediverse_software: "mastodon",
      account_avatar_url: `${mastodon.url}/avatars/${me.id}.png`,
    });
    expect((await storedRow(res.id)).textLimit).toBe(500);
  });

  it("a wrong app password or a revoked token → 422 naming the credential; nothing stored", async () => {
    const before = expectData(await listAccounts(viewer)).length;
    const bad = await connect({ platform: "bluesky", identifier: bsky.handle, app_password: "xxxx-xxxx-xxxx-xxxx", instance_url: pds.url });
    const refused = expectProblem(bad, 422, "validation-error");
    expect(refused.detail).toMatch(/refused these credentials/);
    expect(refused.errors).toEqual([{ location: "body.app_password", message: "Refused by the provider" }]);
    const revoked = await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: "not-a-token" });
    expect(expectProblem(revoked, 422, "validation-error").errors?.[0].location).toBe("body.access_token");
    expect(expectData(await listAccounts(viewer)).length).toBe(before);
  });

  it("a provider that errors → 502; one that cannot be reached → 503; never a 500", async () => {
    expectProblem(await connect({ platform: "mastodon", instance_url: failingUrl, access_token: "t" }), 502, "bad-gateway");
    const closed = await freePort();
    const down = await connect({ platform: "bluesky", identifier: "a.test", app_password: "p", instance_url: `http://127.0.0.1:${closed}` });
    expectProblem(down, 503, "service-unavailable");
    expect(down.response.headers.get("retry-after")).toBeTruthy();
  });

  it("refuses private and loopback URLs unless ALLOW_PRIVATE_URLS=true, naming the field", async () => {
    const off = { ALLOW_PRIVATE_URLS: "false" };
    const hook = await connect({ platform: "webhook", url: receiver.url }, admin, off);
    const hookProblem = expectProblem(hook, 422, "validation-error");
    expect(hookProblem.errors?.[0].location).toBe("body.url");
    expect(hookProblem.detail).toMatch(/private|loopback/);
    for (const url of ["http://localhost:1234/x", "https://10.0.0.5/hook", "https://[::1]/", "https://metadata.internal/", "https://169.254.169.254/"]) {
      expect((await connect({ platform: "webhook", url }, admin, off)).error?.errors?.[0]?.location).toBe("body.url");
    }
    const instance = await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: "t" }, admin, off);
    expect(expectProblem(instance, 422, "validation-error").errors?.[0].location).toBe("body.instance_url");
    const pdsRes = await connect({ platform: "bluesky", instance_url: "http://192.168.1.10", identifier: "a", app_password: "b" }, admin, off);
    expect(pdsRes.error?.errors?.[0].location).toBe("body.instance_url");
    // Public hosts need https when private URLs are off.
    const plain = await connect({ platform: "webhook", url: "http://example.com/hook" }, admin, off);
    expect(plain.error?.errors?.[0]).toMatchObject({ location: "body.url", message: "The URL must use https" });
  });

  it("validates per platform: required fields, fields another platform uses, unknown platforms", async () => {
    const missing = await connect({ platform: "webhook" });
    expect(expectProblem(missing, 422, "validation-error").errors?.map((e) => e.location)).toEqual(["body.url"]);
    const bsk = await connect({ platform: "bluesky", identifier: "x" });
    expect(bsk.error?.errors?.map((e) => e.location)).toEqual(["body.app_password"]);
    const mixed = await connect({ platform: "webhook", url: receiver.url, access_token: "tok_misplacedtoken" });
    expect(mixed.error?.errors).toEqual([{ location: "body.access_token", message: "Not used by platform webhook" }]); // the value is not echoed
    const long = await connect({ platform: "bluesky", identifier: "x", app_password: "p".repeat(201) });
    expect(long.error?.errors).toEqual([{ location: "body.app_password", message: expect.any(String) }]);
    // A platform outside the declared enum, which the typed client forbids: sent raw, recorded like the rest.
    const unknownPlatform = await api<Problem>("POST", "/accounts", { token: admin.token, json: { workspace_id: ws, platform: "myspace" } });
    seen.push(unknownPlatform.text);
    expect(unknownPlatform.body.errors?.[0].location).toBe("body.platform");
    expect((await connect({ platform: "webhook", url: "x".repeat(5000) })).error?.errors?.[0].location).toBe("body.url");
    expect((await connect({ platform: "webhook", url: "not a url" })).error?.errors?.[0].location).toBe("body.url");
  });

  it("admins connect; editors get 403, non-members 404", async () => {
    expectProblem(await connect({ platform: "webhook", url: receiver.url }, editor), 403, "forbidden");
    expectProblem(await connect({ platform: "webhook", url: receiver.url }, viewer), 403, "forbidden");
    expectProblem(await connect({ platform: "webhook", url: receiver.url }, outsider), 404, "not-found");
    expect((await connect({ platform: "webhook", url: receiver.url }, owner)).response.status).toBe(201);
  });
});

describe("GET /accounts and DELETE /accounts/{id}", () => {
  it("lists the workspace's accounts as a bare array, each with $schema; 404 for non-members", async () => {
    const res = await listAccounts(viewer);
    expect(res.response.status).toBe(200);
    const accounts = expectData(res);
    expect(Array.isArray(accounts)).toBe(true);
    expect(accounts.length).toBeGreaterThanOrEqual(3);
    for (const a of accounts) expect(a.$schema).toBe("http://localhost:8787/api/v1/schemas/AccountResponse.json");
    expect(new Set(accounts.map((a) => a.platform))).toEqual(new Set(["webhook", "bluesky", "mastodon"]));
    expectProblem(await listAccounts(outsider), 404, "not-found");
  });

  it("deletes an unused account (admin), 403 for editors, 404 across workspaces", async () => {
    const created = expectData(await connect({ platform: "webhook", url: receiver.url, username: "to delete" }), 201);
    const elsewhere = await newWorkspace(outsider);
    expectProblem(await disconnect(created.id, editor), 403, "forbidden");
    expectProblem(await disconnect(created.id, outsider), 404, "not-found");
    const res = await disconnect(created.id, admin);
    expect(res.response.status).toBe(204);
    expect(await storedRow(created.id)).toBeUndefined();
    expectProblem(await disconnect(created.id, admin), 404, "not-found");
    expect(elsewhere).toBeTruthy();
  });

  it("refuses (409 not-editable) while a scheduled or publishing publication targets it; keeps a published one's history", async () => {
    const created = expectData(await connect({ platform: "webhook", url: receiver.url, username: "busy" }), 201);
    const pubId = newId("pub");
    await withDb(async (db) => {
      await db.insert(publications).values({ id: pubId, workspaceId: ws, status: "publishing", sourceText: "x" });
      await db.insert(renditions).values({
        id: newId("rnd"),
        publicationId: pubId,
        workspaceId: ws,
        socialAccountId: created.id,
        platform: "webhook",
        position: 0,
        body: "x",
        deliveryKey: newId("dlv"),
      });
    });
    expectProblem(await disconnect(created.id, admin), 409, "not-editable");
    await withDb((db) => db.update(publications).set({ status: "scheduled" }).where(eq(publications.id, pubId)));
    expectProblem(await disconnect(created.id, admin), 409, "not-editable");
    await withDb((db) => db.update(publications).set({ status: "published" }).where(eq(publications.id, pubId)));
    await withDb((db) => db.update(renditions).set({ status: "published" }).where(eq(renditions.publicationId, pubId)));
    expect((await disconnect(created.id, admin)).response.status).toBe(204);
    const kept = await storedRow(created.id);
    expect(kept.disconnectedAt).toBeInstanceOf(Date);
    expect(kept.credentialsCiphertext).toBeNull();
    const listed = expectData(await listAccounts(viewer)).map((a) => a.id);
    expect(listed).not.toContain(created.id);
  });
});

describe("POST /accounts/{account_id}/refresh-metadata", () => {
  it("reads the profile again and stores it (Bluesky against the PDS, Mastodon against the double)", async () => {
    const me = mastodon.addAccount("refresher");
    const created = expectData(await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: me.token }), 201);
    await withDb((db) =>
      db
        .update(socialAccounts)
        .set({ username: "stale", fediverseSoftware: null, capabilityCheckedAt: new Date(0) })
        .where(eq(socialAccounts.id, created.id)),
    );
    const res = expectData(await refresh(created.id, admin));
    expect(res).toMatchObject({
      $schema: expect.stringMatching(/AccountResponse\.json$/),
      id: created.id,
      account_username: `refresher@${new URL(mastodon.url).host}`,
      fediverse_software: "mastodon",
      instance_url: mastodon.url,
    });
    expect(Date.parse(res.capability_checked_at ?? "")).toBeGreaterThan(Date.now() - 60_000);

    const list = expectData(await listAccounts(viewer));
    const bluesky = list.find((a) => a.platform === "bluesky");
    const b = expectData(await refresh(bluesky!.id, owner));
    expect(b).toMatchObject({ account_username: bsky.handle, account_id: bsky.did });
  });

  it("403 for editors, 404 for non-members and unknown ids", async () => {
    const list = expectData(await listAccounts(viewer));
    expectProblem(await refresh(list[0].id, editor), 403, "forbidden");
    expectProblem(await refresh(list[0].id, outsider), 404, "not-found");
    expectProblem(await refresh("acc_doesnotexist", admin), 404, "not-found");
  });

  it("provider errors become problems: revoked token 422, server error 502, unreachable 503", async () => {
    const me = mastodon.addAccount("revokable");
    const id = expectData(await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: me.token }), 201).id;
    const point = (instanceUrl: string) => withDb((db) => db.update(socialAccounts).set({ instanceUrl }).where(eq(socialAccounts.id, id)));
    await point(failingUrl);
    expectProblem(await refresh(id, admin), 502, "bad-gateway");
    await point(`http://127.0.0.1:${await freePort()}`);
    expectProblem(await refresh(id, admin), 503, "service-unavailable");
    await point(mastodon.url);
    await withDb(async (db) => {
      const { encryptJson } = await import("../lib/secrets");
      await db
        .update(socialAccounts)
        .set({ credentialsCiphertext: await encryptJson(env.INSTANCE_SECRET_KEY!, { access_token: "revoked" }) })
        .where(eq(socialAccounts.id, id));
    });
    expectProblem(await refresh(id, admin), 422, "validation-error");
  });
});

describe("GET /accounts/providers", () => {
  it("lists webhook, bluesky and mastodon with every SPEC field and honest readiness", async () => {
    const providers = (user: User, workspace_id?: string) => as(user).GET("/accounts/providers", { params: { query: workspace_id ? { workspace_id } : {} } });
    const all = expectData(await providers(viewer, ws));
    // Every platform is listed (issue 28; the OAuth ones in test/oauth-connect.test.ts); these three need no configuration.
    expect(all.map((p) => p.platform)).toEqual([...PLATFORMS]);
    const res = all.filter((p) => ["webhook", "bluesky", "mastodon"].includes(p.platform));
    const fields = [
      "auth_mode",
      "description",
      "display_name",
      "installation_id",
      "instance_url",
      "name",
      "platform",
      "status",
      "capabilities",
      "configured_connection_modes",
      "connection_modes",
      "configured",
      "connection_readiness",
      "readiness",
    ];
    const readinessFields = [
      "advertisable",
      "analytics_ready",
      "connectable",
      "discoverable",
      "executable",
      "observable",
      "publishable",
      "blockers",
      "contract_digest",
      "state",
      "facts",
    ];
    for (const p of res) {
      expect(p.$schema).toBe("http://localhost:8787/api/v1/schemas/Provider.json");
      for (const f of fields) expect(p, `${p.platform}.${f}`).toHaveProperty(f);
      for (const f of readinessFields) expect(p.readiness, `${p.platform}.readiness.${f}`).toHaveProperty(f);
      expect(Object.keys(p.readiness.facts).sort()).toEqual([
        "approval",
        "authorization",
        "configuration",
        "control",
        "live_certification",
        "local_test",
        "policy",
      ]);
      expect(p.configured).toBe(true);
      // Bluesky and Mastodon collect analytics (lib/accounts/catalog.ts, issue 25); a webhook has nothing to read.
      const collects = p.platform !== "webhook";
      expect(p.readiness).toMatchObject({ connectable: true, publishable: true, analytics_ready: collects });
      if (collects) expect(p.readiness.blockers.map((b) => b.code)).not.toContain("analytics_not_collected");
      else expect(p.readiness.blockers.map((b) => b.code)).toContain("analytics_not_collected");
      expect(p.readiness.contract_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(Object.keys(p.connection_readiness)).toEqual(p.connection_modes);
    }
    const [webhook, bluesky, mastodonP] = res;
    expect(webhook.readiness.observable).toBe(false);
    expect(bluesky).toMatchObject({ auth_mode: "app_password", instance_url: "https://bsky.social" });
    expect(bluesky.readiness.facts.local_test).toMatch(/real PDS/);
    expect(mastodonP.readiness.facts.local_test).toMatch(/no Mastodon server can run/);
    expect((await providers(outsider)).response.status).toBe(200);
    expectProblem(await providers(outsider, ws), 404, "not-found");
  });
});

describe("credentials never leave", () => {
  it("no response in this file carried a secret, app password or access token", () => {
    // Every call above went through the recording middleware (or pushed its raw text): the check below is not vacuous.
    expect(seen.length).toBeGreaterThan(40);
    const everything = seen.join("\n");
    const leak = /"(secret|app_password|access_token|credentials[a-z_]*)"\s*:\s*"/.exec(everything);
    expect(leak && everything.slice(Math.max(0, leak.index - 200), leak.index + 100)).toBeNull();
    expect(everything).not.toContain("s3cret-webhook-key");
    expect(everything).not.toContain(bsky.appPassword);
    // A word of its own: "tiktok_client_id" (a setting the provider list names) is not a token.
    expect(everything).not.toMatch(/\btok_[a-z0-9]{6,}/);
    expect(everything).not.toMatch(/"(secret|app_password|access_token|credentials[a-z_]*)"\s*:\s*"/);
  });
});
