import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, publications, renditions, socialAccounts } from "../db/schema";
import gateway from "../functions/all-groups";
import { newId } from "../lib/ids";
import { freePort } from "../local/services/ports";
import { decryptJson } from "../lib/secrets";
import { api, env, newUser, newWorkspace, withDb, type ApiResponse, expectProblem } from "./helpers/harness";
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

async function call(method: string, path: string, user: User | undefined, json?: unknown, envOverride?: Record<string, string>): Promise<ApiResponse> {
  const res = envOverride
    ? await (async () => {
        const r = await gateway.request(
          path,
          { method, headers: { authorization: `Bearer ${user!.token}`, "content-type": "application/json" }, body: JSON.stringify(json) },
          { ...env, ...envOverride },
        );
        const text = await r.text();
        return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null, text };
      })()
    : await api(method, path, { token: user?.token, json });
  seen.push(res.text);
  return res;
}

const connect = (body: Record<string, unknown>, user: User = admin, envOverride?: Record<string, string>) =>
  call("POST", "/accounts", user, { workspace_id: ws, ...body }, envOverride);

const storedRow = (id: string) => withDb(async (db) => (await db.select().from(socialAccounts).where(eq(socialAccounts.id, id)))[0]);

describe("POST /accounts", () => {
  it("connects a webhook: 201 AccountResponse, the secret encrypted at rest and never returned", async () => {
    const res = await connect({ platform: "webhook", url: receiver.url, secret: "s3cret-webhook-key", username: "Our receiver" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
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
    expect(res.body.id).toMatch(/^acc_/);
    expect(Date.parse(res.body.capability_checked_at)).toBeGreaterThan(Date.now() - 60_000);
    const row = await storedRow(res.body.id);
    expect(row.url).toBe(receiver.url);
    expect(row.credentialsCiphertext).toMatch(/^v1\./);
    expect(row.credentialsCiphertext).not.toContain("s3cret");
    expect(await decryptJson(env.INSTANCE_SECRET_KEY!, row.credentialsCiphertext!)).toEqual({ secret: "s3cret-webhook-key" });
    const [event] = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, res.body.id)));
    expect(event).toMatchObject({ action: "account.connect", actorUserId: admin.id, workspaceId: ws });
  });

  it("connects a Bluesky account against a real PDS with an app password, reading handle and DID from it", async () => {
    const res = await connect({ platform: "bluesky", identifier: bsky.handle, app_password: bsky.appPassword, instance_url: pds.url });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      platform: "bluesky",
      account_username: bsky.handle,
      account_id: bsky.did,
      instance_url: pds.url,
      messaging_supported: true,
      thread_replies_supported: true,
      account_kind: "personal",
      fediverse_software: null,
    });
    const row = await storedRow(res.body.id);
    expect(row.credentialsCiphertext).not.toContain(bsky.appPassword);
    expect(await decryptJson(env.INSTANCE_SECRET_KEY!, row.credentialsCiphertext!)).toEqual({ identifier: bsky.handle, app_password: bsky.appPassword });
    // The same Bluesky account twice in one workspace is a conflict.
    expectProblem(await connect({ platform: "bluesky", identifier: bsky.handle, app_password: bsky.appPassword, instance_url: pds.url }), 409, "conflict");
  });

  it("connects a Mastodon account: username, software from NodeInfo, canonical instance URL, text limit", async () => {
    const me = mastodon.addAccount("herald");
    const res = await connect({ platform: "mastodon", instance_url: `${mastodon.url}/some/path/`, access_token: me.token });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      platform: "mastodon",
      account_username: `herald@${new URL(mastodon.url).host}`,
      account_id: me.id,
      instance_url: mastodon.url,
      fediverse_software: "mastodon",
      account_avatar_url: `${mastodon.url}/avatars/${me.id}.png`,
    });
    expect((await storedRow(res.body.id)).textLimit).toBe(500);
  });

  it("a wrong app password or a revoked token → 422 naming the credential; nothing stored", async () => {
    const before = (await call("GET", `/accounts?workspace_id=${ws}`, viewer)).body.length;
    const bad = await connect({ platform: "bluesky", identifier: bsky.handle, app_password: "xxxx-xxxx-xxxx-xxxx", instance_url: pds.url });
    expectProblem(bad, 422, "validation-error");
    expect(bad.body.detail).toMatch(/refused these credentials/);
    expect(bad.body.errors).toEqual([{ location: "body.app_password", message: "Refused by the provider" }]);
    const revoked = await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: "not-a-token" });
    expectProblem(revoked, 422, "validation-error");
    expect(revoked.body.errors[0].location).toBe("body.access_token");
    expect((await call("GET", `/accounts?workspace_id=${ws}`, viewer)).body.length).toBe(before);
  });

  it("a provider that errors → 502; one that cannot be reached → 503; never a 500", async () => {
    expectProblem(await connect({ platform: "mastodon", instance_url: failingUrl, access_token: "t" }), 502, "bad-gateway");
    const closed = await freePort();
    const down = await connect({ platform: "bluesky", identifier: "a.test", app_password: "p", instance_url: `http://127.0.0.1:${closed}` });
    expectProblem(down, 503, "service-unavailable");
    expect(down.headers.get("retry-after")).toBeTruthy();
  });

  it("refuses private and loopback URLs unless ALLOW_PRIVATE_URLS=true, naming the field", async () => {
    const off = { ALLOW_PRIVATE_URLS: "false" };
    const hook = await connect({ platform: "webhook", url: receiver.url }, admin, off);
    expectProblem(hook, 422, "validation-error");
    expect(hook.body.errors[0].location).toBe("body.url");
    expect(hook.body.detail).toMatch(/private|loopback/);
    for (const url of ["http://localhost:1234/x", "https://10.0.0.5/hook", "https://[::1]/", "https://metadata.internal/", "https://169.254.169.254/"]) {
      expect((await connect({ platform: "webhook", url }, admin, off)).body.errors?.[0]?.location).toBe("body.url");
    }
    const instance = await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: "t" }, admin, off);
    expectProblem(instance, 422, "validation-error");
    expect(instance.body.errors[0].location).toBe("body.instance_url");
    const pdsRes = await connect({ platform: "bluesky", instance_url: "http://192.168.1.10", identifier: "a", app_password: "b" }, admin, off);
    expect(pdsRes.body.errors[0].location).toBe("body.instance_url");
    // Public hosts need https when private URLs are off.
    const plain = await connect({ platform: "webhook", url: "http://example.com/hook" }, admin, off);
    expect(plain.body.errors[0]).toMatchObject({ location: "body.url", message: "The URL must use https" });
  });

  it("validates per platform: required fields, fields another platform uses, unknown platforms", async () => {
    const missing = await connect({ platform: "webhook" });
    expectProblem(missing, 422, "validation-error");
    expect(missing.body.errors.map((e: { location: string }) => e.location)).toEqual(["body.url"]);
    const bsk = await connect({ platform: "bluesky", identifier: "x" });
    expect(bsk.body.errors.map((e: { location: string }) => e.location)).toEqual(["body.app_password"]);
    const mixed = await connect({ platform: "webhook", url: receiver.url, access_token: "tok_misplacedtoken" });
    expect(mixed.body.errors).toEqual([{ location: "body.access_token", message: "Not used by platform webhook" }]); // the value is not echoed
    const long = await connect({ platform: "bluesky", identifier: "x", app_password: "p".repeat(201) });
    expect(long.body.errors).toEqual([{ location: "body.app_password", message: expect.any(String) }]);
    expect((await connect({ platform: "myspace" })).body.errors[0].location).toBe("body.platform");
    expect((await connect({ platform: "webhook", url: "x".repeat(5000) })).body.errors[0].location).toBe("body.url");
    expect((await connect({ platform: "webhook", url: "not a url" })).body.errors[0].location).toBe("body.url");
  });

  it("admins connect; editors get 403, non-members 404", async () => {
    expectProblem(await connect({ platform: "webhook", url: receiver.url }, editor), 403, "forbidden");
    expectProblem(await connect({ platform: "webhook", url: receiver.url }, viewer), 403, "forbidden");
    expectProblem(await connect({ platform: "webhook", url: receiver.url }, outsider), 404, "not-found");
    expect((await connect({ platform: "webhook", url: receiver.url }, owner)).status).toBe(201);
  });
});

describe("GET /accounts and DELETE /accounts/{id}", () => {
  it("lists the workspace's accounts as a bare array, each with $schema; 404 for non-members", async () => {
    const res = await call("GET", `/accounts?workspace_id=${ws}`, viewer);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.length).toBeGreaterThanOrEqual(3);
    for (const a of res.body) expect(a.$schema).toBe("http://localhost:8787/api/v1/schemas/AccountResponse.json");
    expect(new Set(res.body.map((a: { platform: string }) => a.platform))).toEqual(new Set(["webhook", "bluesky", "mastodon"]));
    expectProblem(await call("GET", `/accounts?workspace_id=${ws}`, outsider), 404, "not-found");
  });

  it("deletes an unused account (admin), 403 for editors, 404 across workspaces", async () => {
    const created = await connect({ platform: "webhook", url: receiver.url, username: "to delete" });
    const elsewhere = await newWorkspace(outsider);
    expectProblem(await call("DELETE", `/accounts/${created.body.id}`, editor), 403, "forbidden");
    expectProblem(await call("DELETE", `/accounts/${created.body.id}`, outsider), 404, "not-found");
    const res = await call("DELETE", `/accounts/${created.body.id}`, admin);
    expect(res.status).toBe(204);
    expect(await storedRow(created.body.id)).toBeUndefined();
    expectProblem(await call("DELETE", `/accounts/${created.body.id}`, admin), 404, "not-found");
    expect(elsewhere).toBeTruthy();
  });

  it("refuses (409 not-editable) while a scheduled or publishing publication targets it; keeps a published one's history", async () => {
    const created = await connect({ platform: "webhook", url: receiver.url, username: "busy" });
    const pubId = newId("pub");
    await withDb(async (db) => {
      await db.insert(publications).values({ id: pubId, workspaceId: ws, status: "publishing", sourceText: "x" });
      await db.insert(renditions).values({
        id: newId("rnd"),
        publicationId: pubId,
        workspaceId: ws,
        socialAccountId: created.body.id,
        platform: "webhook",
        position: 0,
        body: "x",
        deliveryKey: newId("dlv"),
      });
    });
    expectProblem(await call("DELETE", `/accounts/${created.body.id}`, admin), 409, "not-editable");
    await withDb((db) => db.update(publications).set({ status: "scheduled" }).where(eq(publications.id, pubId)));
    expectProblem(await call("DELETE", `/accounts/${created.body.id}`, admin), 409, "not-editable");
    await withDb((db) => db.update(publications).set({ status: "published" }).where(eq(publications.id, pubId)));
    await withDb((db) => db.update(renditions).set({ status: "published" }).where(eq(renditions.publicationId, pubId)));
    expect((await call("DELETE", `/accounts/${created.body.id}`, admin)).status).toBe(204);
    const kept = await storedRow(created.body.id);
    expect(kept.disconnectedAt).toBeInstanceOf(Date);
    expect(kept.credentialsCiphertext).toBeNull();
    const listed = (await call("GET", `/accounts?workspace_id=${ws}`, viewer)).body.map((a: { id: string }) => a.id);
    expect(listed).not.toContain(created.body.id);
  });
});

describe("POST /accounts/{account_id}/refresh-metadata", () => {
  it("reads the profile again and stores it (Bluesky against the PDS, Mastodon against the double)", async () => {
    const me = mastodon.addAccount("refresher");
    const created = await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: me.token });
    await withDb((db) =>
      db
        .update(socialAccounts)
        .set({ username: "stale", fediverseSoftware: null, capabilityCheckedAt: new Date(0) })
        .where(eq(socialAccounts.id, created.body.id)),
    );
    const res = await call("POST", `/accounts/${created.body.id}/refresh-metadata`, admin);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      $schema: expect.stringMatching(/AccountResponse\.json$/),
      id: created.body.id,
      account_username: `refresher@${new URL(mastodon.url).host}`,
      fediverse_software: "mastodon",
      instance_url: mastodon.url,
    });
    expect(Date.parse(res.body.capability_checked_at)).toBeGreaterThan(Date.now() - 60_000);

    const list = (await call("GET", `/accounts?workspace_id=${ws}`, viewer)).body;
    const bluesky = list.find((a: { platform: string }) => a.platform === "bluesky");
    const b = await call("POST", `/accounts/${bluesky.id}/refresh-metadata`, owner);
    expect(b.status, b.text).toBe(200);
    expect(b.body).toMatchObject({ account_username: bsky.handle, account_id: bsky.did });
  });

  it("403 for editors, 404 for non-members and unknown ids", async () => {
    const list = (await call("GET", `/accounts?workspace_id=${ws}`, viewer)).body;
    expectProblem(await call("POST", `/accounts/${list[0].id}/refresh-metadata`, editor), 403, "forbidden");
    expectProblem(await call("POST", `/accounts/${list[0].id}/refresh-metadata`, outsider), 404, "not-found");
    expectProblem(await call("POST", "/accounts/acc_doesnotexist/refresh-metadata", admin), 404, "not-found");
  });

  it("provider errors become problems: revoked token 422, server error 502, unreachable 503", async () => {
    const me = mastodon.addAccount("revokable");
    const created = await connect({ platform: "mastodon", instance_url: mastodon.url, access_token: me.token });
    const id = created.body.id;
    const point = (instanceUrl: string) => withDb((db) => db.update(socialAccounts).set({ instanceUrl }).where(eq(socialAccounts.id, id)));
    await point(failingUrl);
    expectProblem(await call("POST", `/accounts/${id}/refresh-metadata`, admin), 502, "bad-gateway");
    await point(`http://127.0.0.1:${await freePort()}`);
    expectProblem(await call("POST", `/accounts/${id}/refresh-metadata`, admin), 503, "service-unavailable");
    await point(mastodon.url);
    await withDb(async (db) => {
      const { encryptJson } = await import("../lib/secrets");
      await db
        .update(socialAccounts)
        .set({ credentialsCiphertext: await encryptJson(env.INSTANCE_SECRET_KEY!, { access_token: "revoked" }) })
        .where(eq(socialAccounts.id, id));
    });
    expectProblem(await call("POST", `/accounts/${id}/refresh-metadata`, admin), 422, "validation-error");
  });
});

describe("GET /accounts/providers", () => {
  it("lists webhook, bluesky and mastodon with every SPEC field and honest readiness", async () => {
    const res = await call("GET", `/accounts/providers?workspace_id=${ws}`, viewer);
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((p: { platform: string }) => p.platform)).toEqual(["webhook", "bluesky", "mastodon"]);
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
    for (const p of res.body) {
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
      expect(p.readiness).toMatchObject({ connectable: true, publishable: true, analytics_ready: false });
      expect(p.readiness.blockers.map((b: { code: string }) => b.code)).toContain("analytics_not_collected");
      expect(p.readiness.contract_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(Object.keys(p.connection_readiness)).toEqual(p.connection_modes);
    }
    const [webhook, bluesky, mastodonP] = res.body;
    expect(webhook.readiness.observable).toBe(false);
    expect(bluesky).toMatchObject({ auth_mode: "app_password", instance_url: "https://bsky.social" });
    expect(bluesky.readiness.facts.local_test).toMatch(/real PDS/);
    expect(mastodonP.readiness.facts.local_test).toMatch(/no Mastodon server can run/);
    expect((await call("GET", "/accounts/providers", outsider)).status).toBe(200);
    expectProblem(await call("GET", `/accounts/providers?workspace_id=${ws}`, outsider), 404, "not-found");
  });
});

describe("credentials never leave", () => {
  it("no response in this file carried a secret, app password or access token", () => {
    const everything = seen.join("\n");
    const leak = /"(secret|app_password|access_token|credentials[a-z_]*)"\s*:\s*"/.exec(everything);
    expect(leak && everything.slice(Math.max(0, leak.index - 200), leak.index + 100)).toBeNull();
    expect(everything).not.toContain("s3cret-webhook-key");
    expect(everything).not.toContain(bsky.appPassword);
    expect(everything).not.toMatch(/tok_[a-z0-9]{6,}/);
    expect(everything).not.toMatch(/"(secret|app_password|access_token|credentials[a-z_]*)"\s*:\s*"/);
  });
});
