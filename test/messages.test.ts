import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inboundMessages, jobReceipts, outboxJobs, socialAccounts } from "../db/schema";
import { drainQueue } from "../lib/jobs/consumer";
import { queueUrl, sqsClient } from "../lib/jobs/sqs";
import { messagesRefresh } from "../queues/messages-refresh";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, slugOf, withDb } from "./helpers/harness";
import { expectData, expectError, nextLink, type Schemas } from "./helpers/typed";
import { startPds, type PdsPeer } from "./peers/bluesky-pds";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

/**
 * POST /messages/refresh → outbox → SQS → queues/messages-refresh.ts → GET /messages. Mastodon mentions
 * come from the documented-behaviour test double (no Mastodon server can run here); Bluesky runs against a
 * real PDS, which has no AppView, so its notifications cannot be read locally: the test shows that
 * outcome being recorded rather than retried forever.
 */

type User = Awaited<ReturnType<typeof newUser>>;
let mastodon: MastodonPeer;
let pds: PdsPeer;
let owner: User, editor: User, viewer: User, outsider: User;

beforeAll(async () => {
  [mastodon, pds] = await Promise.all([startMastodon(), startPds()]);
  [owner, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
}, 90_000);
afterAll(async () => {
  await Promise.all([mastodon?.stop(), pds?.stop()]);
});

const refresh = (user: User, ws: string) => client(user.token).POST("/messages/refresh", { body: { workspace_id: ws } });
const connect = (user: User, body: Schemas["CreateAccountRequest"]) => client(user.token).POST("/accounts", { body });
const messages = (user: User, query: { workspace_id: string; account_id?: string; limit?: number; cursor?: string }) =>
  client(user.token).GET("/messages", { params: { query } });
const stored = (accountId: string) => withDb((db) => db.select().from(inboundMessages).where(eq(inboundMessages.socialAccountId, accountId)));

/** Drain the messages queue until `done` holds (the queue is shared by this file's tests). */
async function drainUntil(done: () => Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    await drainQueue(env, messagesRefresh, { waitSeconds: 1, budgetMs: 3000 });
    if (await done()) return;
  }
  throw new Error("the consumer did not finish in time");
}

async function workspaceWithMastodon() {
  const ws = await newWorkspace(owner, [
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  const me = mastodon.addAccount(`inbox${Date.now().toString(36)}`);
  const fan = mastodon.addAccount("fan");
  const res = await connect(owner, { workspace_id: ws, platform: "mastodon", instance_url: mastodon.url, access_token: me.token });
  return { ws, me, fan, accountId: expectData(res, 201).id };
}

describe("POST /messages/refresh", () => {
  it("answers unavailable with queued 0 when no account can collect messages (none, or webhooks only)", async () => {
    const ws = await newWorkspace(owner, [{ id: editor.id, role: "editor" }]);
    const empty = expectData(await refresh(editor, ws), 202);
    expect(empty).toEqual({
      $schema: "http://localhost:8787/api/v1/schemas/RefreshCapabilityOutcome.json",
      status: "unavailable",
      queued: 0,
      error_code: "no_message_capable_accounts",
    });
    await connect(owner, { workspace_id: ws, platform: "webhook", url: "http://127.0.0.1:1/hook" });
    expect((await refresh(editor, ws)).data?.status).toBe("unavailable");
    expect(
      await withDb((db) =>
        db
          .select()
          .from(outboxJobs)
          .where(and(eq(outboxJobs.workspaceId, ws), eq(outboxJobs.kind, "messages.refresh"))),
      ),
    ).toEqual([]);
  });

  it("queues one job per capable account in the outbox; the consumer stores mentions and replies; GET /messages reads them", async () => {
    const { ws, me, fan, accountId } = await workspaceWithMastodon();
    const older = mastodon.mention(fan.id, me.id, "first mention");
    await new Promise((r) => setTimeout(r, 5));
    const newer = mastodon.mention(fan.id, me.id, "a reply", older.id);
    const res = expectData(await refresh(editor, ws), 202);
    expect(res).toMatchObject({ status: "queued", queued: 1, error_code: null });
    const jobs = await withDb((db) =>
      db
        .select()
        .from(outboxJobs)
        .where(and(eq(outboxJobs.workspaceId, ws), eq(outboxJobs.kind, "messages.refresh"))),
    );
    expect(jobs.map((j) => j.payload)).toEqual([{ account_id: accountId }]);

    await drainUntil(async () => (await stored(accountId)).length === 2);
    const list = expectData(await messages(viewer, { workspace_id: ws }));
    expect(list.map((m) => m.external_id)).toEqual([newer.id, older.id]);
    expect(list[0]).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/Message.json",
      workspace_id: ws,
      account_id: accountId,
      platform: "mastodon",
      kind: "mention",
      author_handle: "fan",
      in_reply_to_external_id: older.id,
    });
    expect(list[1]).toMatchObject({ kind: "mention", text: `@${me.username} first mention`, url: older.url });
    const account = await withDb(async (db) => (await db.select().from(socialAccounts).where(eq(socialAccounts.id, accountId)))[0]);
    expect(account.messagesCollectedAt).toBeInstanceOf(Date);
    expect(account.messagesErrorCode).toBeNull();
  });

  it("a redelivered job and a second refresh store nothing twice; a new mention is added", async () => {
    const { ws, me, fan, accountId } = await workspaceWithMastodon();
    mastodon.mention(fan.id, me.id, "only once");
    await refresh(editor, ws);
    await drainUntil(async () => (await stored(accountId)).length === 1);
    const [job] = await withDb((db) =>
      db
        .select()
        .from(outboxJobs)
        .where(and(eq(outboxJobs.workspaceId, ws), eq(outboxJobs.kind, "messages.refresh"))),
    );

    // SQS delivers the same job again: its receipt makes it a no-op.
    const sqs = sqsClient(env);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(env, "messages.refresh"),
        MessageBody: JSON.stringify({ job_id: job.id, kind: job.kind, workspace_id: ws, payload: job.payload }),
      }),
    );
    sqs.destroy();
    let duplicates = 0;
    for (let i = 0; i < 10 && duplicates === 0; i++) duplicates += (await drainQueue(env, messagesRefresh, { waitSeconds: 1, budgetMs: 2000 })).duplicates;
    expect(duplicates).toBe(1);
    expect((await stored(accountId)).length).toBe(1);

    // A second refresh is a new job that reads the same mention again: the unique key keeps one row.
    await refresh(editor, ws);
    mastodon.mention(fan.id, me.id, "something new");
    await drainUntil(async () => (await stored(accountId)).length === 2);
    await refresh(editor, ws);
    await drainUntil(async () => {
      const jobs = await withDb((db) =>
        db
          .select()
          .from(outboxJobs)
          .where(and(eq(outboxJobs.workspaceId, ws), eq(outboxJobs.kind, "messages.refresh"))),
      );
      const receipts = await Promise.all(jobs.map((j) => withDb((db) => db.select().from(jobReceipts).where(eq(jobReceipts.jobId, j.id)))));
      return receipts.every((r) => r.length === 1);
    });
    const rows = await stored(accountId);
    expect(rows.map((r) => r.text).sort()).toEqual([`@${me.username} only once`, `@${me.username} something new`]);
  });

  it("a Bluesky account on a PDS without an AppView: the job ends, the account records why, nothing is stored", async () => {
    const ws = await newWorkspace(owner);
    const who = await pds.createAccount("inbox");
    const created = expectData(
      await connect(owner, { workspace_id: ws, platform: "bluesky", instance_url: pds.url, identifier: who.handle, app_password: who.appPassword }),
      201,
    );
    const res = await refresh(owner, ws);
    expect(res.data).toMatchObject({ status: "queued", queued: 1 });
    const errorCode = async () => (await withDb((db) => db.select().from(socialAccounts).where(eq(socialAccounts.id, created.id))))[0].messagesErrorCode;
    await drainUntil(async () => (await errorCode()) !== null);
    expect(await errorCode()).toBe("appview_unavailable");
    expect(await stored(created.id)).toEqual([]);
  });

  it("roles: editors refresh, viewers get 403, non-members 404", async () => {
    const ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
    expect(slugOf(expectError(await refresh(viewer, ws), 403))).toBe("forbidden");
    expect((await refresh(outsider, ws)).response.status).toBe(404);
  });
});

describe("GET /messages", () => {
  it("pages newest first with an opaque cursor; filters by account; 404 for non-members; 422 for a bad cursor", async () => {
    const { ws, me, fan, accountId } = await workspaceWithMastodon();
    for (const text of ["one", "two", "three"]) {
      mastodon.mention(fan.id, me.id, text);
      await new Promise((r) => setTimeout(r, 5));
    }
    await refresh(owner, ws);
    await drainUntil(async () => (await stored(accountId)).length === 3);
    const first = await messages(viewer, { workspace_id: ws, limit: 2 });
    expect(expectData(first).map((m) => m.text)).toEqual([`@${me.username} three`, `@${me.username} two`]);
    // The next page through its Link's cursor; the Link keeps the workspace and the limit.
    const next = nextLink(first.response);
    expect(next).toBeTruthy();
    expect(next?.searchParams.get("workspace_id")).toBe(ws);
    expect(next?.searchParams.get("limit")).toBe("2");
    const cursor = next?.searchParams.get("cursor") ?? undefined;
    expect(cursor).toBeDefined();
    const second = await messages(viewer, { workspace_id: ws, limit: 2, cursor });
    expect(expectData(second).map((m) => m.text)).toEqual([`@${me.username} one`]);
    expect(second.response.headers.get("link")).toBeNull();
    expect((await messages(viewer, { workspace_id: ws, account_id: "acc_other" })).data).toEqual([]);
    expect((await messages(viewer, { workspace_id: ws, account_id: accountId })).data).toHaveLength(3);
    expect((await messages(outsider, { workspace_id: ws })).response.status).toBe(404);
    const bad = await messages(viewer, { workspace_id: ws, cursor: "nonsense" });
    expect(expectError(bad, 422).errors?.[0].location).toBe("query.cursor");
  });
});
