import { describe, expect, it } from "vitest";
import { api, newUser, newWorkspace, slugOf } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";

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
    const res = await api("POST", "/publications", {
      token: owner.token,
      json: {
        workspace_id: ws,
        title: "Launch",
        source_text: LONG,
        destinations: [{ social_account_id: bluesky }, { social_account_id: mastodon }, { social_account_id: hook }],
      },
    });
    expect(res.status, res.text).toBe(201);
    const pub = res.body;
    expect(pub).toMatchObject({ status: "draft", revision: 1, title: "Launch", workspace_id: ws, scheduled_at: null });
    expect(pub.$schema).toMatch(/PublicationResponse\.json$/);
    const byPlatform = Object.fromEntries(pub.renditions.map((r: any) => [r.platform, r]));
    expect(byPlatform.bluesky.segments.length).toBeGreaterThan(byPlatform.mastodon.segments.length);
    expect(byPlatform.webhook.segments).toHaveLength(1);
    for (const s of byPlatform.bluesky.segments) expect([...new Intl.Segmenter().segment(s.body)].length).toBeLessThanOrEqual(300);
    expect(byPlatform.bluesky.segments.map((s: any) => s.body).join(" ")).toBe(LONG);
    expect(byPlatform.bluesky.delivery).toMatchObject({ state: "not_started", recovery_action: "none", target_key: `bluesky:${bluesky}` });

    const got = await api("GET", `/publications/${pub.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.renditions).toHaveLength(3);
  });

  it("keeps explicit segments and refuses ones over the limit, naming the field", async () => {
    const { owner, ws, bluesky } = await setup();
    const ok = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "x", destinations: [{ social_account_id: bluesky, segments: [{ body: "one" }, { body: "two" }] }] },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.renditions[0]).toMatchObject({ format_locked: true });
    expect(ok.body.renditions[0].segments.map((s: any) => s.body)).toEqual(["one", "two"]);
    const tooLong = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "x", destinations: [{ social_account_id: bluesky, segments: [{ body: "y".repeat(301) }] }] },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors[0].location).toBe("body.destinations[0].segments[0].body");
  });

  it("refuses destinations from another workspace as a validation error", async () => {
    const { owner, ws } = await setup();
    const other = await setup();
    const res = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "hi", destinations: [{ social_account_id: other.bluesky }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].location).toBe("body.destinations[0].social_account_id");
  });

  it("404 across workspaces and 403 for viewers", async () => {
    const { owner, ws, hook } = await setup();
    const viewer = await newUser();
    const stranger = await newUser();
    const { body: pub } = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "hello", destinations: [{ social_account_id: hook }] },
    });
    expect((await api("GET", `/publications/${pub.id}`, { token: stranger.token })).status).toBe(404);
    expect((await api("PUT", `/publications/${pub.id}`, { token: stranger.token, json: { expected_revision: 1, title: "x" } })).status).toBe(404);
    const ws2 = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
    const { body: pub2 } = await api("POST", "/publications", { token: owner.token, json: { workspace_id: ws2, source_text: "hello", destinations: [] } });
    expect((await api("GET", `/publications/${pub2.id}`, { token: viewer.token })).status).toBe(200);
    const denied = await api("PUT", `/publications/${pub2.id}`, { token: viewer.token, json: { expected_revision: 1, title: "x" } });
    expect(denied.status).toBe(403);
    expect((await api("POST", "/publications", { token: viewer.token, json: { workspace_id: ws2, source_text: "x", destinations: [] } })).status).toBe(403);
  });

  it("updates only the given fields, with optimistic concurrency and Idempotency-Key", async () => {
    const { owner, ws, bluesky } = await setup();
    const { body: pub } = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, title: "T", source_text: "Original text", metadata: { a: 1 }, destinations: [{ social_account_id: bluesky }] },
    });
    const put = (json: object, key?: string) =>
      api("PUT", `/publications/${pub.id}`, { token: owner.token, json, headers: key ? { "idempotency-key": key } : {} });
    const updated = await put({ expected_revision: 1, source_text: "New text" }, "edit-1");
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ revision: 2, title: "T", source_text: "New text", metadata: { a: 1 } });
    expect(updated.body.renditions[0].segments[0].body).toBe("New text");
    const replay = await put({ expected_revision: 1, source_text: "New text" }, "edit-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.revision).toBe(2);
    expect((await put({ expected_revision: 1, source_text: "Other" }, "edit-1")).status).toBe(422);
    const stale = await put({ expected_revision: 1, title: "Stale" });
    expect(stale.status).toBe(409);
    expect(stale.body.current_revision).toBe(2);
    const scheduled = await put({ expected_revision: 2, scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    expect(scheduled.body).toMatchObject({ status: "scheduled", revision: 3 });
    // CONTRACT §9: a time in the past publishes at once (the scheduler takes it on its next run).
    const past = await put({ expected_revision: 3, scheduled_at: "2020-01-01T00:00:00Z" });
    expect(past.status, past.text).toBe(200);
    expect(past.body).toMatchObject({ status: "scheduled", scheduled_at: "2020-01-01T00:00:00.000Z", revision: 4 });
  });

  it("deletes only with confirm=true and the current revision", async () => {
    const { owner, ws, hook } = await setup();
    const { body: pub } = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "bye", destinations: [{ social_account_id: hook }] },
    });
    const noConfirm = await api("DELETE", `/publications/${pub.id}?expected_revision=1`, { token: owner.token });
    expect(noConfirm.status).toBe(400);
    expect(slugOf(noConfirm.body)).toBe("confirmation-required");
    expect((await api("DELETE", `/publications/${pub.id}?confirm=true&expected_revision=2`, { token: owner.token })).status).toBe(409);
    expect((await api("DELETE", `/publications/${pub.id}?confirm=true`, { token: owner.token })).status).toBe(422);
    const del = await api("DELETE", `/publications/${pub.id}?confirm=true&expected_revision=1`, { token: owner.token });
    expect(del.status, del.text).toBe(200);
    expect(del.body).toMatchObject({ publication_id: pub.id, job_id: null });
    expect(del.body.renditions).toHaveLength(1);
    expect((await api("GET", `/publications/${pub.id}`, { token: owner.token })).status).toBe(404);
  });
});
