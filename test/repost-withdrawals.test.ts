import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repostAttempts, repostGrants, repostPolicies } from "../db/schema";
import { drainQueue } from "../lib/jobs/consumer";
import { relayOutbox } from "../lib/jobs/outbox";
import { newId } from "../lib/ids";
import { evaluateRepostPolicies } from "../lib/repost/run-evaluator";
import { repost } from "../queues/repost";
import { seedItem } from "./helpers/analytics";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { activityOfRendition, attemptsOfRendition, policyRow, publishedRendition, ruleData } from "./helpers/repost";
import { expectData } from "./helpers/typed";
// Mastodon cannot run here: a local stand-in answering as the Mastodon API documents (see its header).
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

/**
 * What people withdraw takes effect at once (CONTRACT §8): a repost runs only if, at that moment, its policy is
 * still enabled and its grant still stands. Withdrawing through the API drops the queued reposts (listed with
 * the reason); a job already on the queue checks again and does nothing. Only native measurements trigger.
 */

let masto: MastodonPeer;
beforeAll(async () => {
  masto = await startMastodon();
});
afterAll(() => masto?.stop());

const evaluate = (ws: string) => withDb((db) => evaluateRepostPolicies(db, { workspaceIds: [ws] }));
async function runJobs(jobs: string[]) {
  await withDb((db) => relayOutbox(db, env, { ids: jobs }));
  await drainQueue(env, repost, { waitSeconds: 1, budgetMs: 15_000 });
}

/** Workspace A posts; B owns the Mastodon account that reposts for A under a grant. */
async function crossWorkspace() {
  const [ownerA, ownerB] = await Promise.all([newUser(), newUser()]);
  const [wsA, wsB] = await Promise.all([newWorkspace(ownerA), newWorkspace(ownerB)]);
  const a = masto.addAccount("poster");
  const b = masto.addAccount("booster");
  const source = await newAccount(wsA, ownerA.id, "mastodon", { instanceUrl: masto.url, username: a.username, credentials: { access_token: a.token } });
  const target = await newAccount(wsB, ownerB.id, "mastodon", { instanceUrl: masto.url, username: b.username, credentials: { access_token: b.token } });
  const grantId = newId("rpg");
  await withDb((db) => db.insert(repostGrants).values({ id: grantId, sourceWorkspaceId: wsA, targetWorkspaceId: wsB, targetAccountId: target }));
  const policyId = await policyRow(wsA, [source], [target]);
  /** A post of A's source account with enough native likes to qualify. */
  async function post(text: string, likes = 5) {
    const status = masto.addStatus(a.id, text);
    const r = await publishedRendition(wsA, source, "mastodon", status.id, status.url);
    await seedItem(wsA, source, { externalId: status.id, publishedAt: r.publishedAt, renditionId: r.renditionId, metrics: { likes } });
    return { status, ...r };
  }
  return { ownerA, ownerB, wsA, wsB, a, b, source, target, grantId, policyId, post };
}
const reblogsOf = (statusId: string) => masto.reblogRequests.filter((r) => r.statusId === statusId);

describe("withdrawing a grant", () => {
  it("through the API: the queued repost is dropped and listed with the reason, its job does nothing, and nothing more is queued", async () => {
    const t = await crossWorkspace();
    const p = await t.post("granted, then not");
    const jobs = await evaluate(t.wsA);
    expect(jobs).toHaveLength(1);
    expect(await attemptsOfRendition(p.renditionId)).toMatchObject([{ status: "queued", targetAccountId: t.target }]);

    // B's owner (admin of the account's workspace) withdraws it.
    const res = await client(t.ownerB.token).DELETE("/repost-automation/grants/{id}", { params: { path: { id: t.grantId } } });
    expect(res.response.status).toBe(204);
    expect(await attemptsOfRendition(p.renditionId)).toEqual([]);
    const listed = expectData(await client(t.ownerA.token).GET("/repost-automation/activity", { params: { query: { workspace_id: t.wsA } } }));
    expect(listed.items.filter((i) => i.rendition_id === p.renditionId)).toMatchObject([
      {
        action: "repost",
        status: "dropped",
        reason: "dropped: the grant for the target account was withdrawn",
        target_account_id: t.target,
        policy_id: t.policyId,
      },
      { action: "repost", status: "queued" },
    ]);

    await runJobs(jobs);
    expect(reblogsOf(p.status.id)).toEqual([]);
    expect(masto.isReblogged(t.b.id, p.status.id)).toBe(false);
    expect(await evaluate(t.wsA)).toEqual([]);
  }, 60_000);

  it("between queueing and reposting: the job checks the grant itself, does nothing and says why", async () => {
    const t = await crossWorkspace();
    const p = await t.post("withdrawn while queued");
    const jobs = await evaluate(t.wsA);
    expect(jobs).toHaveLength(1);
    // Gone without the API's clean-up (as if deleted the moment after the evaluator read it).
    await withDb((db) => db.delete(repostGrants).where(eq(repostGrants.id, t.grantId)));
    await runJobs(jobs);
    expect(reblogsOf(p.status.id)).toEqual([]);
    expect(await attemptsOfRendition(p.renditionId)).toEqual([]);
    expect((await activityOfRendition(p.renditionId)).map((a) => [a.status, a.reason])).toEqual([
      ["queued", "stage 0: all of: likes 5 ≥ 3"],
      ["dropped", "dropped: the grant for the target account was withdrawn"],
    ]);
  }, 60_000);

  it("while the grant stands the same setup reposts (the control)", async () => {
    const t = await crossWorkspace();
    const p = await t.post("granted");
    await runJobs(await evaluate(t.wsA));
    expect(reblogsOf(p.status.id)).toEqual([{ accountId: t.b.id, statusId: p.status.id, action: "reblog" }]);
    expect(await attemptsOfRendition(p.renditionId)).toMatchObject([{ status: "done" }]);
  }, 60_000);
});

describe("disabling or deleting a policy", () => {
  it("disabled through the API: queued reposts are dropped with the reason and their jobs do nothing; enabled again, they are queued again", async () => {
    const t = await crossWorkspace();
    const p = await t.post("policy turned off");
    const jobs = await evaluate(t.wsA);
    expect(jobs).toHaveLength(1);
    const body = { name: "p", enabled: false, source_account_ids: [t.source], target_account_ids: [t.target], rule: ruleData(), expected_revision: 1 };
    expectData(await client(t.ownerA.token).PUT("/repost-automation/policies/{id}", { params: { path: { id: t.policyId } }, body }));
    expect(await attemptsOfRendition(p.renditionId)).toEqual([]);
    expect((await activityOfRendition(p.renditionId)).map((a) => [a.status, a.reason])).toEqual([
      ["queued", "stage 0: all of: likes 5 ≥ 3"],
      ["dropped", "dropped: the policy was disabled"],
    ]);
    await runJobs(jobs);
    expect(reblogsOf(p.status.id)).toEqual([]);
    expect(await evaluate(t.wsA)).toEqual([]);

    expectData(
      await client(t.ownerA.token).PUT("/repost-automation/policies/{id}", {
        params: { path: { id: t.policyId } },
        body: { ...body, enabled: true, expected_revision: 2 },
      }),
    );
    await runJobs(await evaluate(t.wsA));
    expect(reblogsOf(p.status.id)).toEqual([{ accountId: t.b.id, statusId: p.status.id, action: "reblog" }]);
  }, 60_000);

  it("disabled between queueing and reposting: the job checks the policy itself, does nothing and says why", async () => {
    const t = await crossWorkspace();
    const p = await t.post("disabled while queued");
    const jobs = await evaluate(t.wsA);
    await withDb((db) => db.update(repostPolicies).set({ enabled: false }).where(eq(repostPolicies.id, t.policyId)));
    await runJobs(jobs);
    expect(reblogsOf(p.status.id)).toEqual([]);
    expect((await activityOfRendition(p.renditionId)).map((a) => a.reason)).toEqual(["stage 0: all of: likes 5 ≥ 3", "dropped: the policy was disabled"]);
  }, 60_000);

  it("a target removed from the policy: its queued repost is dropped", async () => {
    const t = await crossWorkspace();
    const own = masto.addAccount("own");
    const ownTarget = await newAccount(t.wsA, t.ownerA.id, "mastodon", {
      instanceUrl: masto.url,
      username: own.username,
      credentials: { access_token: own.token },
    });
    await withDb((db) =>
      db
        .update(repostPolicies)
        .set({ targetAccountIds: [t.target, ownTarget] })
        .where(eq(repostPolicies.id, t.policyId)),
    );
    const p = await t.post("two targets");
    const jobs = await evaluate(t.wsA);
    expect(jobs).toHaveLength(2);
    expectData(
      await client(t.ownerA.token).PUT("/repost-automation/policies/{id}", {
        params: { path: { id: t.policyId } },
        body: { name: "p", enabled: true, source_account_ids: [t.source], target_account_ids: [ownTarget], rule: ruleData(), expected_revision: 1 },
      }),
    );
    await runJobs(jobs);
    expect(reblogsOf(p.status.id)).toEqual([{ accountId: own.id, statusId: p.status.id, action: "reblog" }]);
    expect((await activityOfRendition(p.renditionId)).filter((a) => a.status === "dropped")).toMatchObject([
      { targetAccountId: t.target, reason: "dropped: the target account was removed from the policy" },
    ]);
  }, 60_000);

  it("deleted through the API: its queued reposts are dropped, listed with the reason, and their jobs do nothing", async () => {
    const t = await crossWorkspace();
    const p = await t.post("policy deleted");
    const jobs = await evaluate(t.wsA);
    const res = await client(t.ownerA.token).DELETE("/repost-automation/policies/{id}", { params: { path: { id: t.policyId } } });
    expect(res.response.status).toBe(204);
    await runJobs(jobs);
    expect(reblogsOf(p.status.id)).toEqual([]);
    expect((await activityOfRendition(p.renditionId)).map((a) => [a.policyId, a.status, a.reason])).toEqual([
      [t.policyId, "queued", "stage 0: all of: likes 5 ≥ 3"],
      [t.policyId, "dropped", "dropped: the policy was deleted"],
    ]);
  }, 60_000);
});

describe("only native measurements trigger reposts", () => {
  it("imported numbers, even on the post Herald published, trigger nothing; the same numbers collected from the platform do", async () => {
    const t = await crossWorkspace();
    const status = masto.addStatus(t.a.id, "numbers");
    const r = await publishedRendition(t.wsA, t.source, "mastodon", status.id, status.url);
    // Collected once with too few likes: the post is native.
    await seedItem(t.wsA, t.source, { externalId: status.id, publishedAt: r.publishedAt, renditionId: r.renditionId, metrics: { likes: 1 } });
    // An import naming the same post lands on the same content item with a large count.
    const imported = await client(t.ownerA.token).POST("/analytics/measurements", {
      body: {
        workspace_id: t.wsA,
        items: [{ account_id: t.source, external_id: status.id, published_at: r.publishedAt.toISOString(), metrics: { likes: 500 } }],
      },
    });
    expect(expectData(imported).items).toMatchObject([{ created: false }]);
    // An imported post Herald never published, with huge numbers, is no candidate either.
    await seedItem(t.wsA, t.source, {
      externalId: "elsewhere-1",
      publishedAt: new Date(),
      source: "external",
      metrics: { likes: 900 },
      measurementSource: "import",
    });
    expect(await evaluate(t.wsA)).toEqual([]);
    expect(await attemptsOfRendition(r.renditionId)).toEqual([]);

    // A native measurement stored as imported (source `import`) on the native item counts no more.
    await seedItem(t.wsA, t.source, {
      externalId: status.id,
      publishedAt: r.publishedAt,
      renditionId: r.renditionId,
      metrics: { likes: 700 },
      measurementSource: "import",
    });
    expect(await evaluate(t.wsA)).toEqual([]);

    // Collected from the platform: now it qualifies.
    await seedItem(t.wsA, t.source, { externalId: status.id, publishedAt: r.publishedAt, renditionId: r.renditionId, metrics: { likes: 4 } });
    const jobs = await evaluate(t.wsA);
    expect(jobs).toHaveLength(1);
    expect((await activityOfRendition(r.renditionId))[0].reason).toBe("stage 0: all of: likes 4 ≥ 3");
    await runJobs(jobs);
    expect(reblogsOf(status.id)).toHaveLength(1);
  }, 60_000);

  it("measurements collected after the evaluation window do not count", async () => {
    const t = await crossWorkspace();
    await withDb((db) =>
      db
        .update(repostPolicies)
        .set({ rule: ruleData({ evaluation_window_seconds: 3600 }) })
        .where(eq(repostPolicies.id, t.policyId)),
    );
    const status = masto.addStatus(t.a.id, "late numbers");
    const r = await publishedRendition(t.wsA, t.source, "mastodon", status.id, status.url, { minutesAgo: 120 });
    await seedItem(t.wsA, t.source, {
      externalId: status.id,
      publishedAt: r.publishedAt,
      renditionId: r.renditionId,
      metrics: { likes: 1 },
      collectedAt: new Date(Date.now() - 100 * 60_000),
    });
    await seedItem(t.wsA, t.source, { externalId: status.id, publishedAt: r.publishedAt, renditionId: r.renditionId, metrics: { likes: 50 } });
    expect(await evaluate(t.wsA)).toEqual([]);
    expect(await withDb((db) => db.select().from(repostAttempts).where(eq(repostAttempts.renditionId, r.renditionId)))).toEqual([]);
  }, 60_000);
});
