import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../db/schema";
import { encodeCursor } from "../lib/cursor";
import { newId } from "../lib/ids";
import { client } from "./helpers/client";
import type { paths } from "./helpers/api-types";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { expectData, expectProblem, type Schemas } from "./helpers/typed";
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
  return { ...admin, cookie: await passkeySession(admin.token, device, name) };
}

/** Registers a passkey for the bearer of `token` on `device`, signs in with it, and answers the session cookie. */
async function passkeySession(token: string, device: SoftAuthenticator, name?: string) {
  const start = (await client(token).POST("/auth/security/passkeys/start", { body: name === undefined ? {} : { name } })).data;
  await client(token).POST("/auth/security/passkeys/finish", {
    body: { challenge_id: start?.challenge_id ?? "", credential: device.register(start?.options) },
  });
  const signIn = (await client().POST("/auth/sessions/passkey/start")).data;
  const done = await client().POST("/auth/sessions/passkey/finish", {
    body: { challenge_id: signIn?.challenge_id ?? "", credential: device.assert(signIn?.options) },
  });
  expect(done.response.status, JSON.stringify(done.error)).toBe(200);
  return done.response.headers.get("set-cookie")!.split(";")[0];
}

type AuditQuery = NonNullable<paths["/admin/audit-evidence"]["get"]["parameters"]["query"]>;
/** GET /admin/audit-evidence with the session cookie (the only credential it takes: a browser session). */
const list = (cookie: string, query: AuditQuery = {}) => client().GET("/admin/audit-evidence", { params: { query }, headers: { cookie } });

describe("GET /admin/audit-evidence", () => {
  it("only an instance administrator's browser session may read it: a token (even an admin's) or a member's session → 403", async () => {
    const admin = await adminSession();
    const ok = expectData(await list(admin.cookie));
    expect(ok.$schema).toMatch(/AuditEvidencePage\.json$/);
    expectProblem(await client(admin.token).GET("/admin/audit-evidence"), 403, "forbidden");
    expectProblem(await client().GET("/admin/audit-evidence"), 401, "unauthorized");
    const member = await newUser();
    const memberCookie = await passkeySession(member.token, new SoftAuthenticator(ORIGIN));
    expectProblem(await list(memberCookie), 403, "forbidden");
  });

  it("lists consequential actions by id, newest first, and never the names, e-mails, titles, bodies, URLs or secrets planted in them", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const admin = await adminSession(PLANTED.passkeyName);
    // Every kind of content, through the API as a person would make it.
    const created = expectData(await client(admin.token).POST("/admin/users", { body: { email: PLANTED.email, display_name: PLANTED.displayName } }), 201);
    const owner = { id: created.user.id, token: created.token };
    const asOwner = client(owner.token);
    const token = expectData(await asOwner.POST("/auth/tokens", { body: { name: PLANTED.tokenName } }), 201);
    const ws = expectData(await asOwner.POST("/workspaces", { body: { name: PLANTED.workspace } }), 201);
    const account = expectData(
      await asOwner.POST("/accounts", {
        body: {
          workspace_id: ws.id,
          platform: "webhook",
          url: `${receiver.url}/${PLANTED.webhookPath}`,
          secret: PLANTED.webhookSecret,
          username: PLANTED.accountName,
        },
      }),
      201,
    );
    const publication = expectData(
      await asOwner.POST("/publications", {
        body: { workspace_id: ws.id, title: PLANTED.title, source_text: PLANTED.body, destinations: [{ social_account_id: account.id }] },
      }),
      201,
    );
    const deleted = await asOwner.DELETE("/publications/{id}", {
      params: { path: { id: publication.id }, query: { confirm: true, expected_revision: publication.revision } },
    });
    expect(deleted.response.status).toBe(200);
    expect((await asOwner.DELETE("/auth/tokens/{id}", { params: { path: { id: token.id } } })).response.status).toBe(204);

    // Everything since this test began, page by page, each page's JSON kept for the search below.
    const items: Schemas["AuditEvidenceItem"][] = [];
    const texts: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(admin.cookie, { since, limit: 200, ...(cursor ? { cursor } : {}) });
      const body: Schemas["AuditEvidencePage"] = expectData(page);
      texts.push(JSON.stringify(body));
      items.push(...body.items);
      cursor = body.next_cursor;
    } while (cursor);

    const mine = items.filter((e) => [admin.id, owner.id].some((id) => id === e.actor_id));
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
    expect(mine.find((e) => e.action === "publication.create")).toMatchObject({ workspace_id: ws.id, target_id: publication.id });
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
    const asOwner = client(owner.token);
    for (let i = 0; i < 3; i++) expect((await asOwner.POST("/auth/tokens", { body: { name: `t${i}` } })).response.status).toBe(201);
    const renamed = await asOwner.PATCH("/workspaces/{id}", { params: { path: { id: ws } }, body: { name: "Renamed", expected_revision: 1 } });
    expect(renamed.response.status).toBe(200);

    const byActorPage = await list(admin.cookie, { actor_id: owner.id, action: "token.create", limit: 2 });
    const byActor = expectData(byActorPage);
    expect(byActor.items).toHaveLength(2);
    expect(byActor.items.every((e) => e.actor_id === owner.id && e.action === "token.create")).toBe(true);
    expect(byActorPage.response.headers.get("link")).toMatch(/rel="next"/);
    const rest = (await list(admin.cookie, { actor_id: owner.id, action: "token.create", limit: 2, cursor: byActor.next_cursor ?? "" })).data;
    expect(rest?.items).toHaveLength(1);
    expect(rest?.next_cursor).toBeNull();
    const ids = [...byActor.items, ...(rest?.items ?? [])].map((e) => e.id);
    expect(new Set(ids).size).toBe(3);

    const inWorkspace = await list(admin.cookie, { workspace_id: ws });
    expect(inWorkspace.data?.items.map((e) => e.action)).toEqual(["workspace.update"]);
    const future = await list(admin.cookie, { since: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.data?.items).toEqual([]);
    const past = await list(admin.cookie, { actor_id: owner.id, until: "2020-01-01T00:00:00Z" });
    expect(past.data?.items).toEqual([]);

    const refused: AuditQuery[] = [
      { cursor: "bm90LW91cnM" },
      { limit: 0 },
      { limit: 201 },
      { since: "yesterday" },
      { action: "DROP TABLE" },
      { since: "2026-01-02T00:00:00Z", until: "2026-01-01T00:00:00Z" },
    ];
    for (const query of refused) {
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
    return expectData(await list(cookie, { actor_id: actor, limit: 2, ...(cursor ? { cursor } : {}) }));
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
      expectProblem(await list(admin.cookie, { cursor }), 422, "validation-error");
    }
  });
});
