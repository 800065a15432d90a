import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../db/schema";
import { encodeCursor } from "../lib/cursor";
import { newId } from "../lib/ids";
import { client } from "./helpers/client";
import { api, env, expectProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { expectData, expectProblem as expectTypedProblem } from "./helpers/typed";
import { SoftAuthenticator } from "./helpers/soft-authenticator";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * GET /admin/audit-evidence (SPEC 4.12, CONTRACT §8): an instance administrator's browser session only,
 * filters and a cursor, newest first, and nothing but ids and verbs. Distinctive strings are planted in
 * every field that may carry content, names, e-mails, secrets, URLs or credentials, and the listing's
 * whole text is searched for them.
 */
const ORIGIN = new URL(env.PUBLIC_BASE_URL!).origin;
const mark = `zq${Date.now().toString(36)}`;
const PLANTED = {
  email: `planted-email-${mark}@example.test`,
  displayName: `Planted Name ${mark}`,
  workspace: `Planted Workspace ${mark}`,
  tokenName: `planted-token-name-${mark}`,
  passkeyName: `planted-passkey-${mark}`,
  title: `Planted Title ${mark}`,
  body: `Planted body text ${mark}`,
  webhookPath: `planted-url-path-${mark}`,
  webhookSecret: `planted-secret-${mark}`,
  accountName: `planted-account-${mark}`,
};

let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: PLANTED.webhookSecret });
});
afterAll(async () => receiver?.stop());

/** An instance administrator signed in with a passkey: a bearer token for setting up and the session cookie. */
async function adminSession(name = "Admin key") {
  const admin = await newUser({ isAdmin: true });
  const device = new SoftAuthenticator(ORIGIN);
  const start = await api("POST", "/auth/security/passkeys/start", { token: admin.token, json: { name } });
  await api("POST", "/auth/security/passkeys/finish", {
    token: admin.token,
    json: { challenge_id: start.body.challenge_id, credential: device.register(start.body.options) },
  });
  const signIn = await api("POST", "/auth/sessions/passkey/start");
  const done = await api("POST", "/auth/sessions/passkey/finish", {
    json: { challenge_id: signIn.body.challenge_id, credential: device.assert(signIn.body.options) },
  });
  expect(done.status, done.text).toBe(200);
  return { ...admin, cookie: done.headers.get("set-cookie")!.split(";")[0] };
}

const list = (cookie: string, query = "") => api("GET", `/admin/audit-evidence${query}`, { headers: { cookie } });

describe("GET /admin/audit-evidence", () => {
  it("only an instance administrator's browser session may read it: a token (even an admin's) or a member's session → 403", async () => {
    const admin = await adminSession();
    const ok = await list(admin.cookie);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.$schema).toMatch(/AuditEvidencePage\.json$/);
    expectProblem(await api("GET", "/admin/audit-evidence", { token: admin.token }), 403, "forbidden");
    expectProblem(await api("GET", "/admin/audit-evidence"), 401, "unauthorized");
    const member = await newUser();
    const device = new SoftAuthenticator(ORIGIN);
    const s = await api("POST", "/auth/security/passkeys/start", { token: member.token, json: {} });
    await api("POST", "/auth/security/passkeys/finish", {
      token: member.token,
      json: { challenge_id: s.body.challenge_id, credential: device.register(s.body.options) },
    });
    const si = await api("POST", "/auth/sessions/passkey/start");
    const session = await api("POST", "/auth/sessions/passkey/finish", {
      json: { challenge_id: si.body.challenge_id, credential: device.assert(si.body.options) },
    });
    expectProblem(await list(session.headers.get("set-cookie")!.split(";")[0]), 403, "forbidden");
  });

  it("lists consequential actions by id, newest first, and never the names, e-mails, titles, bodies, URLs or secrets planted in them", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const admin = await adminSession(PLANTED.passkeyName);
    // Every kind of content, through the API as a person would make it.
    const created = await api("POST", "/admin/users", { token: admin.token, json: { email: PLANTED.email, display_name: PLANTED.displayName } });
    expect(created.status, created.text).toBe(201);
    const owner = { id: created.body.user.id, token: created.body.token as string };
    const token = await api("POST", "/auth/tokens", { token: owner.token, json: { name: PLANTED.tokenName } });
    expect(token.status).toBe(201);
    const ws = await api("POST", "/workspaces", { token: owner.token, json: { name: PLANTED.workspace } });
    expect(ws.status, ws.text).toBe(201);
    const account = await api("POST", "/accounts", {
      token: owner.token,
      json: {
        workspace_id: ws.body.id,
        platform: "webhook",
        url: `${receiver.url}/${PLANTED.webhookPath}`,
        secret: PLANTED.webhookSecret,
        username: PLANTED.accountName,
      },
    });
    expect(account.status, account.text).toBe(201);
    const publication = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws.body.id, title: PLANTED.title, source_text: PLANTED.body, destinations: [{ social_account_id: account.body.id }] },
    });
    expect(publication.status, publication.text).toBe(201);
    expect(
      (await api("DELETE", `/publications/${publication.body.id}?confirm=true&expected_revision=${publication.body.revision}`, { token: owner.token })).status,
    ).toBe(200);
    expect((await api("DELETE", `/auth/tokens/${token.body.id}`, { token: owner.token })).status).toBe(204);

    // Everything since this test began, page by page.
    const items: any[] = [];
    const texts: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(admin.cookie, `?since=${encodeURIComponent(since)}&limit=200${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status, page.text).toBe(200);
      texts.push(page.text);
      items.push(...page.body.items);
      cursor = page.body.next_cursor;
    } while (cursor);

    const mine = items.filter((e) => [admin.id, owner.id].includes(e.actor_id));
    const actions = mine.map((e) => e.action);
    for (const action of [
      "passkey.add",
      "session.sign_in",
      "user.create",
      "token.create",
      "workspace.create",
      "account.connect",
      "publication.create",
      "publication.delete",
      "token.revoke",
    ]) {
      expect(actions, action).toContain(action);
    }
    expect(mine.find((e) => e.action === "passkey.add")).toMatchObject({
      actor_kind: "token",
      outcome: "success",
      target_type: "passkey",
      request_id: expect.any(String),
    });
    expect(mine.find((e) => e.action === "session.sign_in")).toMatchObject({ actor_kind: "session", target_type: "session" });
    expect(mine.find((e) => e.action === "publication.create")).toMatchObject({ workspace_id: ws.body.id, target_id: publication.body.id });
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual([
        "action",
        "actor_id",
        "actor_kind",
        "id",
        "occurred_at",
        "outcome",
        "request_id",
        "target_id",
        "target_type",
        "workspace_id",
      ]);
    }
    const occurred = items.map((e) => Date.parse(e.occurred_at));
    expect(occurred).toEqual([...occurred].sort((a, b) => b - a));

    const whole = texts.join("\n").toLowerCase();
    for (const [field, value] of Object.entries({ ...PLANTED, mark, receiver: receiver.url, token: owner.token, cookie: admin.cookie.split("=")[1] })) {
      expect(whole.includes(value.toLowerCase()), `${field} leaked into the audit listing`).toBe(false);
    }
  });

  it("filters by action, actor, workspace and time; pages with a cursor; refuses forged cursors and bad ranges", async () => {
    const admin = await adminSession();
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    for (let i = 0; i < 3; i++) expect((await api("POST", "/auth/tokens", { token: owner.token, json: { name: `t${i}` } })).status).toBe(201);
    expect((await api("PATCH", `/workspaces/${ws}`, { token: owner.token, json: { name: "Renamed", expected_revision: 1 } })).status).toBe(200);

    const byActor = await list(admin.cookie, `?actor_id=${owner.id}&action=token.create&limit=2`);
    expect(byActor.status, byActor.text).toBe(200);
    expect(byActor.body.items).toHaveLength(2);
    expect(byActor.body.items.every((e: any) => e.actor_id === owner.id && e.action === "token.create")).toBe(true);
    expect(byActor.headers.get("link")).toMatch(/rel="next"/);
    const rest = await list(admin.cookie, `?actor_id=${owner.id}&action=token.create&limit=2&cursor=${byActor.body.next_cursor}`);
    expect(rest.body.items).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
    const ids = [...byActor.body.items, ...rest.body.items].map((e: any) => e.id);
    expect(new Set(ids).size).toBe(3);

    const inWorkspace = await list(admin.cookie, `?workspace_id=${ws}`);
    expect(inWorkspace.body.items.map((e: any) => e.action)).toEqual(["workspace.update"]);
    const future = await list(admin.cookie, `?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    expect(future.body.items).toEqual([]);
    const past = await list(admin.cookie, `?actor_id=${owner.id}&until=${encodeURIComponent("2020-01-01T00:00:00Z")}`);
    expect(past.body.items).toEqual([]);

    for (const query of [
      "?cursor=bm90LW91cnM",
      "?limit=0",
      "?limit=201",
      "?since=yesterday",
      "?action=DROP%20TABLE",
      `?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z`,
    ]) {
      expectProblem(await list(admin.cookie, query), 422, "validation-error");
    }
  });
});

describe("GET /admin/audit-evidence orders by occurred_at", () => {
  /** Events of one made-up actor, inserted in this order (so seq ascends) with occurred_at out of that order. */
  async function plant(actor: string, offsetsSeconds: number[], base: number) {
    const ids = offsetsSeconds.map(() => newId("aud"));
    for (const [i, offset] of offsetsSeconds.entries())
      await withDb((db) =>
        db.insert(auditEvents).values({
          id: ids[i],
          occurredAt: new Date(base + offset * 1000),
          actorUserId: actor,
          action: "test.order",
          targetType: "test",
          targetId: ids[i],
          actorKind: "system",
        }),
      );
    return ids;
  }

  async function page(cookie: string, actor: string, cursor?: string) {
    const res = await client().GET("/admin/audit-evidence", {
      params: { query: { actor_id: actor, limit: 2, ...(cursor ? { cursor } : {}) } },
      headers: { cookie },
    });
    return expectData(res);
  }

  it("newest first by occurred_at when seq disagrees, across pages, with a cursor that new events do not move", async () => {
    const admin = await adminSession();
    const actor = newId("usr");
    const base = Date.now() - 3_600_000;
    // seq order e0..e4; occurred_at order e1 > e4 > e3 = e2 > e0 (the tie is broken by seq, newest first).
    const [e0, e1, e2, e3, e4] = await plant(actor, [1, 4, 2, 2, 3], base);

    const first = await page(admin.cookie, actor);
    expect(first.items.map((e) => e.id)).toEqual([e1, e4]);
    expect(first.next_cursor).toEqual(expect.any(String));
    // Events recorded meanwhile, newer and older than the page boundary: the newer never shows on later pages.
    const [newer, older] = await plant(actor, [10, 0], base);
    const second = await page(admin.cookie, actor, first.next_cursor!);
    expect(second.items.map((e) => e.id)).toEqual([e3, e2]);
    const third = await page(admin.cookie, actor, second.next_cursor!);
    expect(third.items.map((e) => e.id)).toEqual([e0, older]);
    expect(third.next_cursor).toBeNull();
    const all = [...first.items, ...second.items, ...third.items].map((e) => Date.parse(e.occurred_at));
    expect(all).toEqual([...all].sort((a, b) => b - a));
    // Starting again sees the newer event first.
    expect((await page(admin.cookie, actor)).items[0].id).toBe(newer);
  });

  it("refuses a cursor of the old shape (a bare sequence number) or with a forged sequence", async () => {
    const admin = await adminSession();
    for (const cursor of [encodeCursor(["12345"]), encodeCursor([new Date().toISOString(), "1 or 1=1"]), encodeCursor([new Date().toISOString(), "0"])]) {
      const res = await client().GET("/admin/audit-evidence", { params: { query: { cursor } }, headers: { cookie: admin.cookie } });
      expectTypedProblem(res, 422, "validation-error");
    }
  });
});
