import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, webhookEndpoints } from "../db/schema";
import { MAX_ENDPOINTS_PER_WORKSPACE } from "../functions/webhook-endpoints/create";
import { decryptJson } from "../lib/secrets";
import { client } from "./helpers/client";
import type { EventType } from "../lib/events/types";
import { api, env, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { clientWithEnv, expectData, expectProblem, locationsOf, nextLink } from "./helpers/typed";

/** CONTRACT §9 Integrations: POST/GET/DELETE /webhook-endpoints, who may, what is refused, never the secret. */

const URL_OK = "http://127.0.0.1:9/hook";

async function team() {
  const [owner, admin, editor, viewer, stranger] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, admin, editor, viewer, stranger, ws };
}

const create = (token: string, body: { workspace_id: string; url: string; events: EventType[] }) => client(token).POST("/webhook-endpoints", { body });
const list = (token: string, ws: string, query: { limit?: number; cursor?: string } = {}) =>
  client(token).GET("/webhook-endpoints", { params: { query: { workspace_id: ws, ...query } } });

describe("POST /webhook-endpoints", () => {
  it("an admin registers an endpoint: 201 with a whsec_ secret shown once, stored sealed, audited by id", async () => {
    const { admin, ws } = await team();
    const made = expectData(await create(admin.token, { workspace_id: ws, url: URL_OK, events: ["publication.published", "build.failed"] }), 201);
    expect(made).toMatchObject({ workspace_id: ws, url: URL_OK, events: ["publication.published", "build.failed"], disabled_at: null, disabled_reason: null });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [row] = await withDb((db) => db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, made.id)));
    expect(row.secretCiphertext).not.toContain(made.secret.slice(6));
    expect(await decryptJson(env.INSTANCE_SECRET_KEY ?? "", row.secretCiphertext)).toEqual({ secret: made.secret });
    const audits = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, made.id))),
    );
    expect(audits.map((a) => a.action)).toEqual(["webhook_endpoint.create"]);
    expect(JSON.stringify(audits)).not.toContain(made.secret);
  });

  it("editors and viewers get 403, another workspace's admin 404, nobody 401", async () => {
    const { editor, viewer, stranger, ws } = await team();
    const body: Parameters<typeof create>[1] = { workspace_id: ws, url: URL_OK, events: ["publication.failed"] };
    expectProblem(await create(editor.token, body), 403, "forbidden");
    expectProblem(await create(viewer.token, body), 403, "forbidden");
    expectProblem(await create(stranger.token, body), 404, "not-found");
    expect((await client().POST("/webhook-endpoints", { body: { workspace_id: ws, url: URL_OK, events: ["publication.failed"] } })).response.status).toBe(401);
  });

  it("refuses unknown events, no events, repeated events, invalid and huge URLs with 422 naming the field", async () => {
    const { admin, ws } = await team();
    // Unknown event names are the point of some cases, which the typed client forbids: api() sends them.
    const cases: [{ workspace_id: string; url: string; events: string[] }, string][] = [
      [{ workspace_id: ws, url: URL_OK, events: ["publication.deleted"] }, "body.events[0]"],
      [{ workspace_id: ws, url: URL_OK, events: [] }, "body.events"],
      [{ workspace_id: ws, url: URL_OK, events: ["build.failed", "build.failed"] }, "body.events"],
      [{ workspace_id: ws, url: "not a url", events: ["build.failed"] }, "body.url"],
      [{ workspace_id: ws, url: "ftp://example.com/hook", events: ["build.failed"] }, "body.url"],
      [{ workspace_id: ws, url: `https://example.com/${"a".repeat(3000)}`, events: ["build.failed"] }, "body.url"],
      [{ workspace_id: ws, url: "https://user:pw@example.com/hook", events: ["build.failed"] }, "body.url"],
    ];
    for (const [json, location] of cases) {
      const res = await api("POST", "/webhook-endpoints", { token: admin.token, json });
      expectRawProblem(res, 422, "validation-error");
      expect((res.body.errors as { location: string }[]).map((e) => e.location)).toContain(location);
    }
    expect(await withDb((db) => db.select().from(webhookEndpoints).where(eq(webhookEndpoints.workspaceId, ws)))).toEqual([]);
  });

  it("refuses loopback and private addresses unless ALLOW_PRIVATE_URLS=true", async () => {
    const { admin, ws } = await team();
    const strict = clientWithEnv(admin.token, { ALLOW_PRIVATE_URLS: "false" });
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "https://10.0.0.5/hook",
      "https://localhost/hook",
      "https://[::1]/hook",
      "http://hooks.example.com/plain-http",
    ]) {
      const problem = expectProblem(
        await strict.POST("/webhook-endpoints", { body: { workspace_id: ws, url, events: ["build.completed"] } }),
        422,
        "validation-error",
      );
      expect(locationsOf(problem)).toEqual(["body.url"]);
    }
    expectData(
      await strict.POST("/webhook-endpoints", { body: { workspace_id: ws, url: "https://hooks.example.com/herald", events: ["build.completed"] } }),
      201,
    );
  });

  it(`allows at most ${MAX_ENDPOINTS_PER_WORKSPACE} endpoints a workspace`, async () => {
    const { admin, ws } = await team();
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE; i++)
      expectData(await create(admin.token, { workspace_id: ws, url: `${URL_OK}/${i}`, events: ["build.failed"] }), 201);
    const problem = expectProblem(await create(admin.token, { workspace_id: ws, url: URL_OK, events: ["build.failed"] }), 422, "validation-error");
    expect(locationsOf(problem)).toEqual(["body.workspace_id"]);
  });
});

describe("GET /webhook-endpoints", () => {
  it("pages oldest first for admins, never a secret; others 403 / 404; a forged cursor 422", async () => {
    const { owner, admin, editor, viewer, stranger, ws } = await team();
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(expectData(await create(owner.token, { workspace_id: ws, url: `${URL_OK}/${i}`, events: ["rendition.failed"] }), 201));
    const first = await list(admin.token, ws, { limit: 2 });
    const page1 = expectData(first);
    expect(page1.map((e) => e.id)).toEqual(made.slice(0, 2).map((e) => e.id));
    const cursor = nextLink(first.response)?.searchParams.get("cursor");
    expect(cursor).toBeTruthy();
    const page2 = expectData(await list(admin.token, ws, { limit: 2, cursor: cursor ?? "" }));
    expect(page2.map((e) => e.id)).toEqual([made[2].id]);
    const text = JSON.stringify([...page1, ...page2]);
    for (const m of made) expect(text).not.toContain(m.secret);
    expect(page1[0]).not.toHaveProperty("secret");
    expectProblem(await list(editor.token, ws), 403, "forbidden");
    expectProblem(await list(viewer.token, ws), 403, "forbidden");
    expectProblem(await list(stranger.token, ws), 404, "not-found");
    expectProblem(await list(admin.token, ws, { cursor: "forged-cursor" }), 422, "validation-error");
  });
});

describe("PATCH /webhook-endpoints/{id}", () => {
  it("an admin changes events and URL, disables and enables it; audited; others 403 / 404; bad input 422", async () => {
    const { owner, admin, editor, stranger, ws } = await team();
    const made = expectData(await create(owner.token, { workspace_id: ws, url: URL_OK, events: ["build.completed"] }), 201);
    const patch = (token: string, body: { url?: string; events?: EventType[]; enabled?: boolean }) =>
      client(token).PATCH("/webhook-endpoints/{id}", { params: { path: { id: made.id } }, body });
    expectProblem(await patch(stranger.token, { enabled: false }), 404, "not-found");
    expectProblem(await patch(editor.token, { enabled: false }), 403, "forbidden");
    expect(expectData(await patch(admin.token, { events: ["build.failed", "publication.failed"], url: `${URL_OK}/v2` }))).toMatchObject({
      events: ["build.failed", "publication.failed"],
      url: `${URL_OK}/v2`,
      disabled_at: null,
    });
    const disabled = expectData(await patch(admin.token, { enabled: false }));
    expect(disabled.disabled_at).not.toBeNull();
    expect(disabled.disabled_reason).toMatch(/administrator/);
    expect(expectData(await patch(admin.token, { enabled: true }))).toMatchObject({ disabled_at: null, disabled_reason: null });
    expect(locationsOf(expectProblem(await patch(admin.token, { url: "ftp://example.com/x" }), 422, "validation-error"))).toEqual(["body.url"]);
    expectProblem(await patch(admin.token, {}), 422, "validation-error");
    const audits = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, made.id)));
    expect(audits.filter((a) => a.action === "webhook_endpoint.update")).toHaveLength(3);
  });
});

describe("DELETE /webhook-endpoints/{id}", () => {
  it("removes it (204, audited), 404 across workspaces, 403 below admin", async () => {
    const { owner, admin, editor, stranger, ws } = await team();
    const made = expectData(await create(owner.token, { workspace_id: ws, url: URL_OK, events: ["build.completed"] }), 201);
    const remove = (token: string, id = made.id) => client(token).DELETE("/webhook-endpoints/{id}", { params: { path: { id } } });
    expectProblem(await remove(stranger.token), 404, "not-found");
    expectProblem(await remove(editor.token), 403, "forbidden");
    expect((await remove(admin.token)).response.status).toBe(204);
    expectProblem(await remove(admin.token), 404, "not-found");
    expect(expectData(await list(admin.token, ws))).toEqual([]);
    const audits = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, made.id)));
    expect(audits.map((a) => a.action).sort()).toEqual(["webhook_endpoint.create", "webhook_endpoint.delete"]);
  });

  it("deliveries and redelivery of another workspace's endpoint are 404, below admin 403", async () => {
    const { owner, editor, stranger, ws } = await team();
    const made = expectData(await create(owner.token, { workspace_id: ws, url: URL_OK, events: ["build.completed"] }), 201);
    const deliveries = (token: string) => client(token).GET("/webhook-endpoints/{id}/deliveries", { params: { path: { id: made.id } } });
    expectProblem(await deliveries(stranger.token), 404, "not-found");
    expectProblem(await deliveries(editor.token), 403, "forbidden");
    expect(expectData(await deliveries(owner.token))).toEqual([]);
    const redeliver = (token: string, deliveryId: string) =>
      client(token).POST("/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver", { params: { path: { id: made.id, delivery_id: deliveryId } } });
    expectProblem(await redeliver(stranger.token, "whd_nothing"), 404, "not-found");
    expectProblem(await redeliver(owner.token, "whd_nothing"), 404, "not-found");
  });
});
