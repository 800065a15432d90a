import { describe, expect, it } from "vitest";
import { api, newUser, newWorkspace, slugOf } from "./helpers/harness";
import { client } from "./helpers/client";
import { newAccount } from "./helpers/publishing";
import { expectData, expectError, type Schemas } from "./helpers/typed";

async function setup() {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const bluesky = await newAccount(ws, owner.id, "bluesky");
  const mastodon = await newAccount(ws, owner.id, "mastodon");
  const hook = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
  return { owner, ws, bluesky, mastodon, hook };
}

const LONG = Array.from({ length: 40 }, (_, i) => `Sentence number ${i + 1} of a long announcement.`).join(" ");

describe("publications", () => {
  it("creates a draft with one rendition per destination, split within each platform's limit", async () => {
    const { owner, ws, bluesky, mastodon, hook } = await setup();
    const c = client(owner.token);
    const pub = expectData(
      await c.POST("/publications", {
        body: {
          workspace_id: ws,
          title: "Launch",
          source_text: LONG,
          destinations: [{ social_account_id: bluesky }, { social_account_id: mastodon }, { social_account_id: hook }],
        },
      }),
      201,
    );
    expect(pub).toMatchObject({ status: "draft", revision: 1, title: "Launch", workspace_id: ws, scheduled_at: null });
    expect(pub.$schema).toMatch(/PublicationResponse\.json$/);
    const byPlatform = Object.fromEntries(pub.renditions.map((r) => [r.platform, r]));
    expect(byPlatform.bluesky.segments.length).toBeGreaterThan(byPlatform.mastodon.segments.length);
    expect(byPlatform.webhook.segments).toHaveLength(1);
    for (const s of byPlatform.bluesky.segments) expect([...new Intl.Segmenter().segment(s.body)].length).toBeLessThanOrEqual(300);
    expect(byPlatform.bluesky.segments.map((s) => s.body).join(" ")).toBe(LONG);
    expect(byPlatform.bluesky.delivery).toMatchObject({ state: "not_started", recovery_action: "none", target_key: `bluesky:${bluesky}` });

    const got = await c.GET("/publications/{id}", { params: { path: { id: pub.id } } });
    expect(got.response.status).toBe(200);
    expect(got.data?.renditions).toHaveLength(3);
  });

  it("keeps explicit segments and refuses ones over the limit, naming the field", async () => {
    const { owner, ws, bluesky } = await setup();
    const c = client(owner.token);
    const ok = expectData(
      await c.POST("/publications", {
        body: { workspace_id: ws, source_text: "x", destinations: [{ social_account_id: bluesky, segments: [{ body: "one" }, { body: "two" }] }] },
      }),
      201,
    );
    expect(ok.renditions[0]).toMatchObject({ format_locked: true });
    expect(ok.renditions[0].segments.map((s) => s.body)).toEqual(["one", "two"]);
    const tooLong = await c.POST("/publications", {
      body: { workspace_id: ws, source_text: "x", destinations: [{ social_account_id: bluesky, segments: [{ body: "y".repeat(301) }] }] },
    });
    expect(expectError(tooLong, 422).errors?.[0].location).toBe("body.destinations[0].segments[0].body");
  });

  it("refuses destinations from another workspace as a validation error", async () => {
    const { owner, ws } = await setup();
    const other = await setup();
    const res = await client(owner.token).POST("/publications", {
      body: { workspace_id: ws, source_text: "hi", destinations: [{ social_account_id: other.bluesky }] },
    });
    expect(expectError(res, 422).errors?.[0].location).toBe("body.destinations[0].social_account_id");
  });

  it("404 across workspaces and 403 for viewers", async () => {
    const { owner, ws, hook } = await setup();
    const viewer = await newUser();
    const stranger = await newUser();
    const asOwner = client(owner.token);
    const asStranger = client(stranger.token);
    const asViewer = client(viewer.token);
    const pub = expectData(
      await asOwner.POST("/publications", { body: { workspace_id: ws, source_text: "hello", destinations: [{ social_account_id: hook }] } }),
      201,
    );
    expect((await asStranger.GET("/publications/{id}", { params: { path: { id: pub.id } } })).response.status).toBe(404);
    expect((await asStranger.PUT("/publications/{id}", { params: { path: { id: pub.id } }, body: { expected_revision: 1, title: "x" } })).response.status).toBe(
      404,
    );
    const ws2 = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
    const pub2 = expectData(await asOwner.POST("/publications", { body: { workspace_id: ws2, source_text: "hello", destinations: [] } }), 201);
    expect((await asViewer.GET("/publications/{id}", { params: { path: { id: pub2.id } } })).response.status).toBe(200);
    const denied = await asViewer.PUT("/publications/{id}", { params: { path: { id: pub2.id } }, body: { expected_revision: 1, title: "x" } });
    expect(denied.response.status).toBe(403);
    expect((await asViewer.POST("/publications", { body: { workspace_id: ws2, source_text: "x", destinations: [] } })).response.status).toBe(403);
  });

  it("updates only the given fields, with optimistic concurrency and Idempotency-Key", async () => {
    const { owner, ws, bluesky } = await setup();
    const c = client(owner.token);
    const pub = expectData(
      await c.POST("/publications", {
        body: { workspace_id: ws, title: "T", source_text: "Original text", metadata: { a: 1 }, destinations: [{ social_account_id: bluesky }] },
      }),
      201,
    );
    const put = (body: Schemas["UpdatePublicationRequest"], key?: string) =>
      c.PUT("/publications/{id}", { params: { path: { id: pub.id }, header: key ? { "idempotency-key": key } : {} }, body });
    const updated = expectData(await put({ expected_revision: 1, source_text: "New text" }, "edit-1"));
    expect(updated).toMatchObject({ revision: 2, title: "T", source_text: "New text", metadata: { a: 1 } });
    expect(updated.renditions[0].segments[0].body).toBe("New text");
    const replay = await put({ expected_revision: 1, source_text: "New text" }, "edit-1");
    expect(replay.response.status).toBe(200);
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.data?.revision).toBe(2);
    expect((await put({ expected_revision: 1, source_text: "Other" }, "edit-1")).response.status).toBe(422);
    const stale = await put({ expected_revision: 1, title: "Stale" });
    expect(expectError(stale, 409).current_revision).toBe(2);
    const scheduled = await put({ expected_revision: 2, scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    expect(scheduled.data).toMatchObject({ status: "scheduled", revision: 3 });
    // CONTRACT §9: a time in the past publishes at once (the scheduler takes it on its next run).
    const past = expectData(await put({ expected_revision: 3, scheduled_at: "2020-01-01T00:00:00Z" }));
    expect(past).toMatchObject({ status: "scheduled", scheduled_at: "2020-01-01T00:00:00.000Z", revision: 4 });
  });

  it("deletes only with confirm=true and the current revision", async () => {
    const { owner, ws, hook } = await setup();
    const c = client(owner.token);
    const pub = expectData(await c.POST("/publications", { body: { workspace_id: ws, source_text: "bye", destinations: [{ social_account_id: hook }] } }), 201);
    const del = (query: { confirm?: boolean; expected_revision: number }) => c.DELETE("/publications/{id}", { params: { path: { id: pub.id }, query } });
    const noConfirm = await del({ expected_revision: 1 });
    expect(slugOf(expectError(noConfirm, 400))).toBe("confirmation-required");
    expect((await del({ confirm: true, expected_revision: 2 })).response.status).toBe(409);
    // Deliberately omits the required `expected_revision`, which the typed client forbids.
    expect((await api("DELETE", `/publications/${pub.id}?confirm=true`, { token: owner.token })).status).toBe(422);
    const deleted = expectData(await del({ confirm: true, expected_revision: 1 }));
    expect(deleted).toMatchObject({ publication_id: pub.id, job_id: null });
    expect(deleted.renditions).toHaveLength(1);
    expect((await c.GET("/publications/{id}", { params: { path: { id: pub.id } } })).response.status).toBe(404);
  });
});
