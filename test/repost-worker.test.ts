import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repostActivity, repostAttempts, repostGrants, repostPolicies, socialAccounts } from "../db/schema";
import { openDb } from "../lib/db/client";
import { drainQueue } from "../lib/jobs/consumer";
import { relayOutbox } from "../lib/jobs/outbox";
import { accountContext } from "../lib/accounts/account-context";
import { blueskyRepost, repostRecordKey } from "../lib/platforms/bluesky/repost";
import { forgetSessions } from "../lib/platforms/bluesky/xrpc";
import { executeRepost } from "../lib/repost/execute";
import { evaluateRepostPolicies } from "../lib/repost/run-evaluator";
import { newId } from "../lib/ids";
import { repost } from "../queues/repost";
import { seedItem } from "./helpers/analytics";
import { policyRow, publishedRendition, ruleData } from "./helpers/repost";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { startPds, type PdsAccount, type PdsPeer } from "./peers/bluesky-pds";
// Mastodon cannot run here: a local stand-in answering as the Mastodon API documents (see its header).
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

/** Repost automation end to end: evaluator → outbox → local SQS → repost consumer → a real PDS / the Mastodon stand-in. */

let pds: PdsPeer;
let masto: MastodonPeer;

beforeAll(async () => {
  [pds, masto] = await Promise.all([startPds(), startMastodon()]);
}, 90_000);
afterAll(async () => {
  await Promise.all([pds?.stop(), masto?.stop()]);
  forgetSessions();
});

const stages = (...delays: number[]) => delays.map((d, i) => ({ delay_seconds: d, unrepost_previous: i > 0 }));

async function workspace() {
  const owner = await newUser();
  return { owner, ws: await newWorkspace(owner) };
}

/** One evaluator pass for this workspace, then the repost consumer until its jobs are done. */
async function runOnce(ws: string) {
  const jobs = await withDb((db) => evaluateRepostPolicies(db, { workspaceIds: [ws] }));
  if (jobs.length) {
    await withDb((db) => relayOutbox(db, env, { ids: jobs }));
    await drainQueue(env, repost, { waitSeconds: 1, budgetMs: 15_000 });
  }
  return jobs;
}

const attemptsOf = (policyId: string) =>
  withDb((db) => db.select().from(repostAttempts).where(eq(repostAttempts.policyId, policyId)).orderBy(repostAttempts.stage));
const activityOf = (policyId: string) =>
  withDb((db) => db.select().from(repostActivity).where(eq(repostActivity.policyId, policyId)).orderBy(repostActivity.at, repostActivity.id));

async function postAs(who: PdsAccount, text: string) {
  const created = await pds.post(
    "com.atproto.repo.createRecord",
    { repo: who.did, collection: "app.bsky.feed.post", record: { $type: "app.bsky.feed.post", text, createdAt: new Date().toISOString() } },
    who.accessJwt,
  );
  expect(created.status).toBe(200);
  return created.body as { uri: string; cid: string };
}
const repostsOf = async (did: string) =>
  (
    await pds.get<{ records: { uri: string; value: { subject: { uri: string; cid: string } } }[] }>("com.atproto.repo.listRecords", {
      repo: did,
      collection: "app.bsky.feed.repost",
      limit: "100",
    })
  ).body.records;

async function blueskyPair(ws: string, owner: { id: string }) {
  const [alice, bob] = await Promise.all([pds.createAccount("alice"), pds.createAccount("bob")]);
  const source = await newAccount(ws, owner.id, "bluesky", {
    instanceUrl: pds.url,
    username: alice.handle,
    credentials: { identifier: alice.handle, app_password: alice.appPassword },
  });
  const target = await newAccount(ws, owner.id, "bluesky", {
    instanceUrl: pds.url,
    username: bob.handle,
    credentials: { identifier: bob.handle, app_password: bob.appPassword },
  });
  return { alice, bob, source, target };
}

describe("repost automation on a real PDS", () => {
  it("reposts a post whose thresholds are met through the target account, once; the activity says why", async () => {
    const { owner, ws } = await workspace();
    const { alice, bob, source, target } = await blueskyPair(ws, owner);
    const post = await postAs(alice, "worth a repost");
    const { renditionId } = await publishedRendition(ws, source, "bluesky", post.uri, null);
    await seedItem(ws, source, {
      externalId: post.uri,
      publishedAt: new Date(),
      renditionId,
      metrics: { likes: 5, reposts: 0, replies: 1 },
      measurementSource: "bluesky_pds",
    });
    const policyId = await policyRow(ws, [source], [target], ruleData());

    expect(await runOnce(ws)).toHaveLength(1);
    const records = await repostsOf(bob.did);
    expect(records).toHaveLength(1);
    expect(records[0].value.subject).toEqual({ uri: post.uri, cid: post.cid });
    const [attempt] = await attemptsOf(policyId);
    expect(attempt).toMatchObject({ status: "done", stage: 0, renditionId, targetAccountId: target, externalId: records[0].uri });
    expect(records[0].uri.split("/").pop()).toBe(await repostRecordKey(attempt.id));

    // Later passes: nothing more to do (one stage), and running the consumer's step again repeats nothing.
    expect(await runOnce(ws)).toEqual([]);
    await withDb((db) => executeRepost(db, env, attempt.id));
    expect(await repostsOf(bob.did)).toHaveLength(1);

    const activity = await activityOf(policyId);
    expect(activity.map((a) => [a.action, a.status])).toEqual([
      ["repost", "queued"],
      ["repost", "done"],
    ]);
    expect(activity[0].reason).toBe("stage 0: all of: likes 5 ≥ 3");
    expect(activity[1].externalId).toBe(records[0].uri);
  }, 60_000);

  it("a lost answer is reconciled by reading the record key: the repost is not made twice", async () => {
    const { owner, ws } = await workspace();
    const { alice, bob, source, target } = await blueskyPair(ws, owner);
    const post = await postAs(alice, "lost answer");
    const { renditionId } = await publishedRendition(ws, source, "bluesky", post.uri, null);
    await seedItem(ws, source, { externalId: post.uri, publishedAt: new Date(), renditionId, metrics: { likes: 9 } });
    const policyId = await policyRow(ws, [source], [target], ruleData());
    const jobs = await withDb((db) => evaluateRepostPolicies(db, { workspaceIds: [ws] }));
    expect(jobs).toHaveLength(1);
    const [attempt] = await attemptsOf(policyId);
    // The repost reached the PDS but its answer never came back: the record exists, the attempt is still queued.
    const bobAccount = await withDb(async (db) => accountContext(env, (await db.select().from(socialAccounts).where(eq(socialAccounts.id, target)))[0], db));
    await blueskyRepost(bobAccount, attempt.id, post.uri);
    expect(await repostsOf(bob.did)).toHaveLength(1);

    await withDb((db) => relayOutbox(db, env, { ids: jobs }));
    await drainQueue(env, repost, { waitSeconds: 1, budgetMs: 15_000 });
    expect(await repostsOf(bob.did)).toHaveLength(1);
    expect((await attemptsOf(policyId))[0]).toMatchObject({ status: "done", externalId: (await repostsOf(bob.did))[0].uri });
  }, 60_000);

  it("stages follow their delays and undo the previous stage when unrepost_previous is set", async () => {
    const { owner, ws } = await workspace();
    const { alice, bob, source, target } = await blueskyPair(ws, owner);
    const post = await postAs(alice, "staged");
    const { renditionId } = await publishedRendition(ws, source, "bluesky", post.uri, null);
    await seedItem(ws, source, { externalId: post.uri, publishedAt: new Date(), renditionId, metrics: { likes: 4 } });
    const policyId = await policyRow(ws, [source], [target], ruleData({ stages: stages(0, 3600) }));

    await runOnce(ws);
    const [first] = await attemptsOf(policyId);
    expect(first.status).toBe("done");
    // Stage 1 is an hour after stage 0: not yet.
    expect(await runOnce(ws)).toEqual([]);
    // An hour passes (stage 0 completed 61 minutes ago).
    await withDb((db) =>
      db
        .update(repostAttempts)
        .set({ completedAt: new Date(Date.now() - 61 * 60_000) })
        .where(eq(repostAttempts.id, first.id)),
    );
    expect(await runOnce(ws)).toHaveLength(1);

    const [stage0, stage1] = await attemptsOf(policyId);
    expect(stage0.unrepostedAt).toBeInstanceOf(Date);
    expect(stage1).toMatchObject({ stage: 1, status: "done", unrepostPrevious: true });
    const records = await repostsOf(bob.did);
    // Stage 0's record was deleted; stage 1's is the only one.
    expect(records.map((r) => r.uri.split("/").pop())).toEqual([await repostRecordKey(stage1.id)]);
    expect((await activityOf(policyId)).map((a) => `${a.stage}:${a.action}:${a.status}`)).toEqual([
      "0:repost:queued",
      "0:repost:done",
      "1:repost:queued",
      "0:unrepost:done",
      "1:repost:done",
    ]);
    expect(await runOnce(ws)).toEqual([]);
  }, 60_000);

  it("a policy whose thresholds are never met does nothing", async () => {
    const { owner, ws } = await workspace();
    const { alice, bob, source, target } = await blueskyPair(ws, owner);
    const post = await postAs(alice, "quiet");
    const { renditionId } = await publishedRendition(ws, source, "bluesky", post.uri, null);
    await seedItem(ws, source, { externalId: post.uri, publishedAt: new Date(), renditionId, metrics: { likes: 2, reposts: 50 } });
    const policyId = await policyRow(ws, [source], [target], ruleData({ min_likes: 3, min_views: 1, threshold_mode: "any" }));
    for (let i = 0; i < 3; i++) expect(await runOnce(ws)).toEqual([]);
    expect(await attemptsOf(policyId)).toEqual([]);
    expect(await activityOf(policyId)).toEqual([]);
    expect(await repostsOf(bob.did)).toEqual([]);
  }, 60_000);

  it("two evaluators racing repost once", async () => {
    const { owner, ws } = await workspace();
    const { alice, bob, source, target } = await blueskyPair(ws, owner);
    const post = await postAs(alice, "race");
    const { renditionId } = await publishedRendition(ws, source, "bluesky", post.uri, null);
    await seedItem(ws, source, { externalId: post.uri, publishedAt: new Date(), renditionId, metrics: { likes: 30 } });
    const policyId = await policyRow(ws, [source], [target], ruleData());
    // Each evaluator on its own connection pool, started together.
    const handles = [openDb(env), openDb(env), openDb(env)];
    try {
      const results = await Promise.all(handles.map((h) => evaluateRepostPolicies(h.db, { workspaceIds: [ws] })));
      const jobs = results.flat();
      expect(jobs).toHaveLength(1);
      await withDb((db) => relayOutbox(db, env, { ids: jobs }));
      await drainQueue(env, repost, { waitSeconds: 1, budgetMs: 15_000 });
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
    expect(await attemptsOf(policyId)).toHaveLength(1);
    expect(await repostsOf(bob.did)).toHaveLength(1);
    expect((await activityOf(policyId)).filter((a) => a.status === "queued")).toHaveLength(1);
  }, 60_000);
});

describe("repost automation on Mastodon (local stand-in server)", () => {
  async function mastodonPair(ws: string, owner: { id: string }) {
    const a = masto.addAccount("source");
    const b = masto.addAccount("target");
    const source = await newAccount(ws, owner.id, "mastodon", { instanceUrl: masto.url, username: a.username, credentials: { access_token: a.token } });
    const target = await newAccount(ws, owner.id, "mastodon", { instanceUrl: masto.url, username: b.username, credentials: { access_token: b.token } });
    return { a, b, source, target };
  }

  it("reblogs through the target account once, and reconciles a reblog already made by reading `reblogged`", async () => {
    const { owner, ws } = await workspace();
    const { a, b, source, target } = await mastodonPair(ws, owner);
    const status = masto.addStatus(a.id, "boost me");
    const { renditionId } = await publishedRendition(ws, source, "mastodon", status.id, status.url);
    await seedItem(ws, source, { externalId: status.id, publishedAt: new Date(), renditionId, metrics: { likes: 7 } });
    const policyId = await policyRow(ws, [source], [target], ruleData({ min_likes: 5, min_reposts: 1, threshold_mode: "any" }));

    expect(await runOnce(ws)).toHaveLength(1);
    expect(masto.isReblogged(b.id, status.id)).toBe(true);
    expect(masto.reblogRequests.filter((r) => r.statusId === status.id)).toEqual([{ accountId: b.id, statusId: status.id, action: "reblog" }]);
    expect((await attemptsOf(policyId))[0]).toMatchObject({ status: "done", externalId: expect.any(String) });

    // A second post whose reblog happened but whose answer was lost: the consumer reads `reblogged` and does not ask again.
    const second = masto.addStatus(a.id, "boost me too");
    const r2 = await publishedRendition(ws, source, "mastodon", second.id, second.url);
    await seedItem(ws, source, { externalId: second.id, publishedAt: new Date(), renditionId: r2.renditionId, metrics: { likes: 7 } });
    masto.reblogAs(b.id, second.id);
    expect(await runOnce(ws)).toHaveLength(1);
    expect(masto.reblogRequests.filter((r) => r.statusId === second.id)).toEqual([]);
    const done = await withDb((db) =>
      db
        .select()
        .from(repostAttempts)
        .where(and(eq(repostAttempts.policyId, policyId), eq(repostAttempts.renditionId, r2.renditionId))),
    );
    expect(done).toMatchObject([{ status: "done" }]);
  }, 60_000);

  it("a target on another server reblogs the post resolved there by its URL", async () => {
    const other = await startMastodon();
    try {
      other.federate(masto);
      const { owner, ws } = await workspace();
      const a = masto.addAccount("home");
      const b = other.addAccount("away");
      const source = await newAccount(ws, owner.id, "mastodon", { instanceUrl: masto.url, username: a.username, credentials: { access_token: a.token } });
      const target = await newAccount(ws, owner.id, "mastodon", { instanceUrl: other.url, username: b.username, credentials: { access_token: b.token } });
      const status = masto.addStatus(a.id, "travels");
      const { renditionId } = await publishedRendition(ws, source, "mastodon", status.id, status.url);
      await seedItem(ws, source, { externalId: status.id, publishedAt: new Date(), renditionId, metrics: { likes: 4 } });
      const policyId = await policyRow(ws, [source], [target], ruleData());
      expect(await runOnce(ws)).toHaveLength(1);
      const local = other.statuses.find((x) => x.url === status.url)!;
      expect(masto.statuses).not.toContain(local); // the other server's own copy, under its own id
      expect(other.isReblogged(b.id, local.id)).toBe(true);
      expect(other.reblogRequests).toEqual([{ accountId: b.id, statusId: local.id, action: "reblog" }]);
      expect((await attemptsOf(policyId))[0]).toMatchObject({ status: "done" });
    } finally {
      await other.stop();
    }
  }, 60_000);

  it("undoes the previous stage's reblog before the next one", async () => {
    const { owner, ws } = await workspace();
    const { a, b, source, target } = await mastodonPair(ws, owner);
    const status = masto.addStatus(a.id, "staged boost");
    const { renditionId } = await publishedRendition(ws, source, "mastodon", status.id, status.url);
    await seedItem(ws, source, { externalId: status.id, publishedAt: new Date(), renditionId, metrics: { likes: 3 } });
    const policyId = await policyRow(ws, [source], [target], ruleData({ stages: stages(0, 0) }));
    await runOnce(ws);
    await runOnce(ws);
    expect(masto.reblogRequests.filter((r) => r.statusId === status.id).map((r) => r.action)).toEqual(["reblog", "unreblog", "reblog"]);
    expect(masto.isReblogged(b.id, status.id)).toBe(true);
    expect((await attemptsOf(policyId)).map((x) => [x.stage, x.status, x.unrepostedAt !== null])).toEqual([
      [0, "done", true],
      [1, "done", false],
    ]);
  }, 60_000);
});

describe("repost automation: isolation, failures, the activity listing", () => {
  it("never reposts another workspace's post, nor through another workspace's account without a grant; a disabled policy does nothing", async () => {
    const a = await workspace();
    const b = await workspace();
    const pa = await blueskyPair(a.ws, a.owner);
    const pb = await blueskyPair(b.ws, b.owner);
    const postB = await postAs(pb.alice, "B's post");
    const rb = await publishedRendition(b.ws, pb.source, "bluesky", postB.uri, null);
    await seedItem(b.ws, pb.source, { externalId: postB.uri, publishedAt: new Date(), renditionId: rb.renditionId, metrics: { likes: 99 } });
    const postA = await postAs(pa.alice, "A's post");
    const ra = await publishedRendition(a.ws, pa.source, "bluesky", postA.uri, null);
    await seedItem(a.ws, pa.source, { externalId: postA.uri, publishedAt: new Date(), renditionId: ra.renditionId, metrics: { likes: 99 } });

    // Written straight to the table (the API refuses both): A's policy names B's account as a source, and B's
    // account as a target without a grant.
    const foreignSource = await policyRow(a.ws, [pb.source], [pa.target], ruleData());
    const ungranted = await policyRow(a.ws, [pa.source], [pb.target], ruleData());
    const disabled = await policyRow(a.ws, [pa.source], [pa.target], ruleData());
    await withDb((db) => db.update(repostPolicies).set({ enabled: false }).where(eq(repostPolicies.id, disabled)));
    expect(await runOnce(a.ws)).toEqual([]);
    for (const id of [foreignSource, ungranted, disabled]) expect(await attemptsOf(id)).toEqual([]);
    expect(await repostsOf(pa.bob.did)).toEqual([]);
    expect(await repostsOf(pb.bob.did)).toEqual([]);

    // B's admin grants its account to A: now A's post is reposted through it (and B's post still never is).
    await withDb((db) => db.insert(repostGrants).values({ id: newId("rpg"), sourceWorkspaceId: a.ws, targetWorkspaceId: b.ws, targetAccountId: pb.target }));
    expect(await runOnce(a.ws)).toHaveLength(1);
    const reposts = await repostsOf(pb.bob.did);
    expect(reposts.map((r) => r.value.subject.uri)).toEqual([postA.uri]);
  }, 60_000);

  it("a refused repost ends as failed and says why; its later stages stop; the activity is listed through the API", async () => {
    const { owner, ws } = await workspace();
    const { alice, bob, source, target } = await blueskyPair(ws, owner);
    const post = await postAs(alice, "soon deleted");
    const { renditionId } = await publishedRendition(ws, source, "bluesky", post.uri, null);
    await seedItem(ws, source, { externalId: post.uri, publishedAt: new Date(), renditionId, metrics: { likes: 5 } });
    const policyId = await policyRow(
      ws,
      [source],
      [target],
      ruleData({
        stages: [
          { delay_seconds: 0, unrepost_previous: false },
          { delay_seconds: 0, unrepost_previous: false },
        ],
      }),
    );
    // The post is deleted on the PDS before the repost runs.
    const deleted = await pds.post(
      "com.atproto.repo.deleteRecord",
      { repo: alice.did, collection: "app.bsky.feed.post", rkey: post.uri.split("/").pop() },
      alice.accessJwt,
    );
    expect(deleted.status).toBe(200);

    expect(await runOnce(ws)).toHaveLength(1);
    expect(await attemptsOf(policyId)).toMatchObject([{ stage: 0, status: "failed", errorCode: "subject_not_found" }]);
    expect(await runOnce(ws)).toEqual([]);
    expect(await repostsOf(bob.did)).toEqual([]);

    const listed = await api("GET", `/repost-automation/activity?workspace_id=${ws}`, { token: owner.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items).toMatchObject([
      {
        policy_id: policyId,
        rendition_id: renditionId,
        target_account_id: target,
        stage: 0,
        action: "repost",
        status: "failed",
        reason: expect.stringContaining("subject_not_found"),
        external_id: null,
      },
      { policy_id: policyId, stage: 0, action: "repost", status: "queued", reason: "stage 0: all of: likes 5 ≥ 3" },
    ]);
  }, 60_000);
});
