import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renditions } from "../db/schema";
import { idempotencyKey } from "../lib/platforms/mastodon/adapter";
import { segmentsToWrite } from "../lib/publishing/edit-rules";
import type { RenditionSegmentRow } from "../lib/publishing/load";
import { scheduleAfterEdit } from "../lib/publishing/schedule";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { expectData, expectProblem, type Schemas } from "./helpers/typed";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

// CONTRACT §9: edits never lose delivery keys or confirmed segments; a published rendition cannot be edited;
// a partially published publication's other renditions can, and are then published again.
let receiver: WebhookPeer;
let mastodon: MastodonPeer;
beforeAll(async () => {
  // Herald splits within 500 characters; this server allows 100, so a longer segment is refused (422, edit_content).
  [receiver, mastodon] = await Promise.all([startWebhookReceiver(), startMastodon({ maxCharacters: 100 })]);
});
afterAll(async () => {
  await Promise.all([receiver.stop(), mastodon.stop()]);
});

const OPENING = "The opening post goes out.";
const TOO_LONG = "This second post is longer than the server allows. ".repeat(3).trim();
const FIXED = "A shorter second post.";

const renditionRow = (id: string) => withDb(async (db) => (await db.select().from(renditions).where(eq(renditions.id, id)))[0]);

describe("editing what was partly published", () => {
  it("a partially published publication: the published rendition is locked, the failed one is edited, keeps its keys and posted segment, and publishing again sends only the rest", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const c = client(owner.token);
    const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
    const who = mastodon.addAccount();
    const toot = await newAccount(ws, owner.id, "mastodon", { instanceUrl: mastodon.url, username: who.username, credentials: { access_token: who.token } });
    const hookDest = { social_account_id: hook };
    const created = await c.POST("/publications", {
      body: {
        workspace_id: ws,
        source_text: "Announcement",
        destinations: [hookDest, { social_account_id: toot, segments: [{ body: OPENING }, { body: TOO_LONG }] }],
      },
    });
    const id = expectData(created, 201).id;
    const publishNow = (expected_revision: number) => c.POST("/publications/{id}/publish-now", { params: { path: { id } }, body: { expected_revision } });
    const put = (body: Schemas["UpdatePublicationRequest"]) => c.PUT("/publications/{id}", { params: { path: { id } }, body });
    expect((await publishNow(1)).response.status).toBe(202);
    expect(await runPipeline(id)).toBe("partially_published");
    const got = expectData(await c.GET("/publications/{id}", { params: { path: { id } } }));
    const [published, failed] = got.renditions;
    expect(published.status).toBe("published");
    expect(failed).toMatchObject({ status: "failed", delivery: { recovery_action: "edit_content" } });
    expect(failed.segments.map((s) => s.status)).toEqual(["published", "failed"]);
    const opening = failed.segments[0].external_id;
    const { deliveryKey } = await renditionRow(failed.id);

    // A change to the published rendition is refused, naming it; nothing changes.
    const changesSource = await put({ expected_revision: 2, source_text: "Announcement, edited" });
    expect(expectProblem(changesSource, 409, "not-editable").detail).toContain(published.id);
    const dropsIt = await put({ expected_revision: 2, destinations: [{ social_account_id: toot, segments: [{ body: OPENING }, { body: FIXED }] }] });
    expect(expectProblem(dropsIt, 409, "not-editable").detail).toContain(published.id);

    // The failed rendition is edited as its advice says.
    const edited = expectData(
      await put({ expected_revision: 2, destinations: [hookDest, { social_account_id: toot, segments: [{ body: OPENING }, { body: FIXED }] }] }),
    );
    expect(edited.status).toBe("partially_published");
    const [same, fixed] = edited.renditions;
    expect(same).toMatchObject({ id: published.id, status: "published", external_id: published.external_id });
    expect(fixed).toMatchObject({ id: failed.id, status: "pending" });
    expect(fixed.segments.map((s) => [s.status, s.body, s.external_id])).toEqual([
      ["published", OPENING, opening],
      ["pending", FIXED, null],
    ]);
    expect((await renditionRow(failed.id)).deliveryKey).toBe(deliveryKey);

    // Publishing again sends the second post only, under the first, with the original delivery key.
    expect((await publishNow(3)).response.status).toBe(202);
    expect(await runPipeline(id)).toBe("published");
    const statuses = mastodon.statusesOf(who.id);
    expect(statuses.map((s) => s.text)).toEqual([OPENING, FIXED]);
    expect(statuses[1]).toMatchObject({ in_reply_to_id: opening, idempotency_key: `${who.id}:${await idempotencyKey(deliveryKey, 1)}` }); // the double keys per account
    expect(receiver.attempts.filter((a) => a.body?.publication_id === id)).toHaveLength(1);

    // Published: no longer editable.
    expectProblem(await put({ expected_revision: 4, title: "Late" }), 409, "not-editable");
  });

  it("a failed webhook rendition edited and published again goes out with its original webhook-id", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const c = client(owner.token);
    const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
    const created = await c.POST("/publications", { body: { workspace_id: ws, source_text: "First words", destinations: [{ social_account_id: hook }] } });
    const pub = expectData(created, 201);
    const id = pub.id;
    const publishNow = (expected_revision: number) => c.POST("/publications/{id}/publish-now", { params: { path: { id } }, body: { expected_revision } });
    const { deliveryKey } = await renditionRow(pub.renditions[0].id);
    receiver.failNext(1, 400);
    await publishNow(1);
    expect(await runPipeline(id)).toBe("failed");

    const edited = await c.PUT("/publications/{id}", { params: { path: { id } }, body: { expected_revision: 2, source_text: "Better words" } });
    expect(edited.response.status, JSON.stringify(edited.error)).toBe(200);
    expect((await renditionRow(pub.renditions[0].id)).deliveryKey).toBe(deliveryKey);
    await publishNow(3);
    expect(await runPipeline(id)).toBe("published");
    const sent = receiver.deliveries.filter((d) => d.body?.publication_id === id);
    expect(sent.map((d) => [d.webhookId, d.body.segments[0].body])).toEqual([[deliveryKey, "Better words"]]);
  });
});

describe("edit rules (pure)", () => {
  const seg = (position: number, status: "pending" | "published" | "failed") => ({ position, status }) as RenditionSegmentRow;
  const planned = (body: string) => ({ title: null, body, url: null, fromSource: false });

  it("segments posted stay; every other position takes the plan's segment", () => {
    const next = segmentsToWrite([seg(0, "published"), seg(1, "failed")], [planned("a"), planned("b"), planned("c")]);
    expect(next.map((n) => [n.position, n.segment.body])).toEqual([
      [1, "b"],
      [2, "c"],
    ]);
  });

  it("without a schedule an edit leaves a draft, except a partially published publication, which stays so", () => {
    const row = { status: "partially_published" as const, scheduledAt: null, runAt: null, calendarAt: new Date(0), randomDelayMinutes: 0 };
    expect(scheduleAfterEdit(row, { scheduledAt: undefined, randomDelayMinutes: undefined })).toMatchObject({
      status: "partially_published",
      calendarAt: new Date(0),
    });
    expect(scheduleAfterEdit({ ...row, status: "failed" }, { scheduledAt: undefined, randomDelayMinutes: undefined })).toMatchObject({
      status: "draft",
      scheduledAt: null,
      runAt: null,
    });
    const at = new Date(Date.now() + 3600_000);
    expect(scheduleAfterEdit({ ...row, status: "draft" }, { scheduledAt: at, randomDelayMinutes: undefined })).toMatchObject({
      status: "scheduled",
      scheduledAt: at,
    });
  });
});
