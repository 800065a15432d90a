import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsContentItems, analyticsCoverage, outboxJobs } from "../db/schema";
import { analyticsBackoffMs } from "../lib/jobs/retry-policy";
import { READ_BUDGET } from "../lib/providers/analytics/collect";
import { collectAccount } from "../lib/analytics/collect-account";
import { queueDueAccounts } from "../lib/analytics/schedule";
import type { Env } from "../lib/env";
import { forgetSessions } from "../lib/platforms/bluesky/xrpc";
import { ensureQueues } from "../local/services/sqs";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { clientWithEnv, expectData, expectProblem } from "./helpers/typed";
import { startBlueskyStandIn, startFaultyProxy, type BlueskyStandIn, type FaultyProxy } from "./peers/faulty-provider";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

/**
 * Collection against providers having a bad day. Mastodon is the documented-behaviour TEST DOUBLE of
 * test/peers/mastodon-server.ts, reached through the fault-injecting proxy of test/peers/faulty-provider.ts;
 * Bluesky is that file's stand-in for a PDS with an AppView (the real PDS other tests run has none). Both
 * stand in for real servers, which cannot be made to answer garbage on purpose. Each bad answer must end
 * as a failure on the account's coverage (code, message, backoff) and never as a thrown job.
 */

const STATUSES = /^\/api\/v1\/accounts\/[^/]+\/statuses$/;
const VERIFY = /^\/api\/v1\/accounts\/verify_credentials$/;
const MINUTE = 60_000;

let mastodon: MastodonPeer;
let proxy: FaultyProxy;
let sky: BlueskyStandIn;
let owner: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  mastodon = await startMastodon();
  [proxy, sky, owner] = await Promise.all([startFaultyProxy(mastodon.url), startBlueskyStandIn(), newUser()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([proxy?.stop(), sky?.stop(), mastodon?.stop()]);
});

async function connectMastodon(ws: string) {
  const me = mastodon.addAccount(`bad${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
  mastodon.setFollowers(me.id, 9);
  mastodon.addStatus(me.id, "A post that is fine");
  const made = expectData(
    await client(owner.token).POST("/accounts", { body: { workspace_id: ws, platform: "mastodon", instance_url: proxy.url, access_token: me.token } }),
    201,
  );
  return { me, accountId: made.id };
}

const coverageOf = async (accountId: string) =>
  (await withDb((db) => db.select().from(analyticsCoverage).where(eq(analyticsCoverage.accountId, accountId))))[0];
const collect = (accountId: string, now: Date, timeoutMs = 2000) => withDb((db) => collectAccount(db, env, accountId, { now, timeoutMs }));

/** The documented shapes, made wrong one way each. */
const account = (fields: Record<string, unknown>) => JSON.stringify({ username: "someone", followers_count: 3, ...fields });
const status = (fields: Record<string, unknown>) => ({
  id: "100001",
  created_at: new Date().toISOString(),
  url: "https://example.test/@someone/100001",
  content: "<p>hello</p>",
  reblog: null,
  favourites_count: 1,
  reblogs_count: 0,
  replies_count: 0,
  ...fields,
});

const BAD_ANSWERS: { name: string; path: RegExp; fault: Parameters<FaultyProxy["fail"]>[1]; code: string; message: RegExp }[] = [
  {
    name: "not JSON (an HTML error page with 200)",
    path: VERIFY,
    fault: { headers: { "content-type": "text/html" }, body: "<html><body>Bad gateway</body></html>" },
    code: "malformed_not_json",
    message: /verify_credentials: the answer is not JSON/,
  },
  {
    name: "NUL characters",
    path: STATUSES,
    fault: { body: JSON.stringify([status({ content: "<p>nul\u0000here</p>" })]) },
    code: "malformed_nul_character",
    message: /statuses: the answer contains NUL characters/,
  },
  { name: "a missing id", path: VERIFY, fault: { body: account({}) }, code: "malformed_id", message: /verify_credentials: id is missing/ },
  {
    name: "a huge id",
    path: STATUSES,
    fault: { body: JSON.stringify([status({ id: "9".repeat(5000) })]) },
    code: "malformed_id",
    message: /statuses: \[0\]\.id is 5000 characters long/,
  },
  {
    name: "an id of the wrong type",
    path: STATUSES,
    fault: { body: JSON.stringify([status({ id: 100001 })]) },
    code: "malformed_id",
    message: /\[0\]\.id is a number/,
  },
  {
    name: "a list that is an object",
    path: STATUSES,
    fault: { body: JSON.stringify({ statuses: [] }) },
    code: "malformed_type",
    message: /statuses is not a list/,
  },
  {
    name: "a count that is text",
    path: STATUSES,
    fault: { body: JSON.stringify([status({ favourites_count: "many" })]) },
    code: "malformed_type",
    message: /favourites_count is not a count/,
  },
  {
    name: "a date that is not one",
    path: STATUSES,
    fault: { body: JSON.stringify([status({ created_at: 17 })]) },
    code: "malformed_type",
    message: /created_at is not a date/,
  },
];

describe("collection against bad answers (Mastodon through the fault proxy)", () => {
  for (const bad of BAD_ANSWERS) {
    it(`${bad.name}: recorded on coverage with code and message, backed off, nothing of the bad page stored`, async () => {
      const ws = await newWorkspace(owner);
      const { accountId } = await connectMastodon(ws);
      proxy.fail(bad.path, bad.fault);
      const now = new Date();
      expect(await collect(accountId, now)).toBe("failed");
      const cov = await coverageOf(accountId);
      // Nothing read at all: failed; a bad page after a good verify_credentials: discovery stays where it was.
      expect(cov).toMatchObject({ status: bad.path === VERIFY ? "failed" : "backfilling", failureCode: bad.code, consecutiveFailures: 1 });
      expect(cov.failureMessage).toMatch(bad.message);
      expect(cov.backoffUntil?.getTime()).toBe(now.getTime() + analyticsBackoffMs(1));
      expect(cov.nextEligibleAt?.getTime()).toBe(cov.backoffUntil?.getTime());
      // A bad statuses page adds nothing (the good page it replaced is read next time).
      const items = await withDb((db) => db.select().from(analyticsContentItems).where(eq(analyticsContentItems.accountId, accountId)));
      expect(items).toEqual([]);
    });
  }

  it("backs off exponentially, calls nobody while backing off, and recovers when the answers are good again", async () => {
    const ws = await newWorkspace(owner);
    const { accountId } = await connectMastodon(ws);
    const garbage = { body: "<html>oops</html>" };
    proxy.fail(VERIFY, garbage, 2);
    const t0 = new Date();
    expect(await collect(accountId, t0)).toBe("failed");
    const first = await coverageOf(accountId);
    expect(first.backoffUntil?.getTime()).toBe(t0.getTime() + 15 * MINUTE);

    // Before the backoff ends: neither the job nor the scheduler calls the provider.
    const calls = proxy.calls.length;
    expect(await collect(accountId, new Date(t0.getTime() + 5 * MINUTE))).toBe("deferred");
    expect(proxy.calls.length).toBe(calls);
    expect(await withDb((db) => queueDueAccounts(db, new Date(t0.getTime() + 5 * MINUTE), { workspaceId: ws }))).toEqual([]);

    // The second failure in a row waits twice as long.
    const t1 = new Date(t0.getTime() + 16 * MINUTE);
    expect(await collect(accountId, t1)).toBe("failed");
    const second = await coverageOf(accountId);
    expect(second).toMatchObject({ consecutiveFailures: 2, failureCode: "malformed_not_json" });
    expect(second.backoffUntil?.getTime()).toBe(t1.getTime() + 30 * MINUTE);

    // Good answers again: the failure is cleared and the post is stored.
    const t2 = new Date(t1.getTime() + 31 * MINUTE);
    expect(await collect(accountId, t2)).toBe("collected");
    expect(await coverageOf(accountId)).toMatchObject({ consecutiveFailures: 0, failureCode: null, failureMessage: null, backoffUntil: null });
    const items = await withDb((db) => db.select().from(analyticsContentItems).where(eq(analyticsContentItems.accountId, accountId)));
    expect(items.map((i) => i.excerpt)).toEqual(["A post that is fine"]);
  });

  it("a 429 with Retry-After waits exactly as long as the platform said", async () => {
    const ws = await newWorkspace(owner);
    const { accountId } = await connectMastodon(ws);
    proxy.fail(STATUSES, { status: 429, headers: { "retry-after": "120" }, body: JSON.stringify({ error: "Too many requests" }) });
    const before = Date.now();
    expect(await collect(accountId, new Date())).toBe("failed");
    const cov = await coverageOf(accountId);
    expect(cov).toMatchObject({ failureCode: "rate_limited", consecutiveFailures: 1 });
    expect(cov.failureMessage).toMatch(/answered 429: Too many requests/);
    // Retry-After: 120 s from when the answer came (not our own 15-minute backoff).
    expect(cov.backoffUntil!.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(cov.backoffUntil!.getTime()).toBeLessThanOrEqual(Date.now() + 120_000);
    expect(cov.nextEligibleAt?.getTime()).toBe(cov.backoffUntil!.getTime());
  });

  it("a provider that never answers times out: recorded as a timeout and backed off", async () => {
    const ws = await newWorkspace(owner);
    const { accountId } = await connectMastodon(ws);
    proxy.fail(VERIFY, { hang: true });
    const now = new Date();
    const started = Date.now();
    expect(await collect(accountId, now, 300)).toBe("failed");
    expect(Date.now() - started).toBeLessThan(5000);
    const cov = await coverageOf(accountId);
    expect(cov).toMatchObject({ failureCode: "timeout", consecutiveFailures: 1 });
    expect(cov.failureMessage).toMatch(/No answer from the provider within/);
    expect(cov.backoffUntil?.getTime()).toBe(now.getTime() + analyticsBackoffMs(1));
  });
});

describe("POST /analytics/refresh respects backoff and Retry-After", () => {
  it("queues only accounts not backing off, names the others and when; all backing off → 429 with Retry-After", async () => {
    // Queues of this test's own: the jobs it queues are not consumed here, nor by other files' consumers.
    const ownQueues = clientWithEnv(owner.token, { ...env, ...(await ensureQueues(env, `bad-answers-${Date.now()}-`)) } as Env);
    const ws = await newWorkspace(owner);
    const limited = await connectMastodon(ws);
    const healthy = await connectMastodon(ws);
    proxy.fail(STATUSES, { status: 429, headers: { "retry-after": "600" }, body: JSON.stringify({ error: "Too many requests" }) });
    expect(await collect(limited.accountId, new Date())).toBe("failed");
    const retryAt = (await coverageOf(limited.accountId)).backoffUntil!;

    const mixed = expectData(await ownQueues.POST("/analytics/refresh", { body: { workspace_id: ws } }), 202);
    expect(mixed.queued).toBe(1);
    expect(mixed.deferred).toEqual([{ account_id: limited.accountId, platform: "mastodon", failure_code: "rate_limited", retry_at: retryAt.toISOString() }]);
    expect(mixed.message).toContain(`may be tried after ${retryAt.toISOString()}`);
    const jobs = await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.workspaceId, ws)));
    expect(jobs.map((j) => j.payload)).toEqual([{ run_id: expect.any(String), account_id: healthy.accountId }]);

    // The healthy account fails too: now nothing may be queued, and the answer says until when.
    proxy.fail(VERIFY, { body: "not json" });
    expect(await collect(healthy.accountId, new Date())).toBe("failed");
    const res = await ownQueues.POST("/analytics/refresh", { body: { workspace_id: ws } });
    const problem = expectProblem(res, 429, "rate-limited");
    const seconds = Number(res.response.headers.get("retry-after"));
    const earliest = Math.min(retryAt.getTime(), (await coverageOf(healthy.accountId)).backoffUntil!.getTime());
    expect(seconds).toBeGreaterThan(0);
    expect(Math.abs(Date.now() + seconds * 1000 - earliest)).toBeLessThan(5000);
    expect(problem.detail).toContain(new Date(earliest).toISOString());
    expect((problem as Record<string, unknown>).deferred).toHaveLength(2);
    // Nothing was queued by the refused request.
    expect(await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.workspaceId, ws)))).toHaveLength(1);
  });
});

describe("Bluesky: AppView calls count in the read budget; a bad AppView answer is recorded, the posts kept", () => {
  it("reads pages only while the budget has room for their counts", async () => {
    forgetSessions();
    const ws = await newWorkspace(owner);
    sky.setFollowers(12);
    const start = Date.now() - 300 * MINUTE;
    for (let i = 0; i < 250; i++) sky.addPost(`post ${i}`, { likes: i % 7, reposts: 1 }, new Date(start + i * MINUTE));
    const made = expectData(
      await client(owner.token).POST("/accounts", {
        body: { workspace_id: ws, platform: "bluesky", instance_url: sky.url, identifier: sky.handle, app_password: "standin-password" },
      }),
      201,
    );
    const before = sky.calls.length;
    expect(await collect(made.id, new Date())).toBe("collected");
    const run = sky.calls.slice(before).filter((c) => c.path !== "com.atproto.server.createSession");
    // getProfile, three pages of listRecords and ten getPosts calls: every one counted, within the budget.
    expect(run.length).toBeLessThanOrEqual(READ_BUDGET.bluesky);
    expect(run.filter((c) => c.path === "app.bsky.feed.getPosts")).toHaveLength(10);
    expect(run.filter((c) => c.path === "com.atproto.repo.listRecords")).toHaveLength(3);
    const items = await withDb((db) => db.select().from(analyticsContentItems).where(eq(analyticsContentItems.accountId, made.id)));
    expect(items).toHaveLength(250);
    // Every post has its counts: none was left for a later run by the budget.
    expect(items.filter((i) => typeof i.latestMetrics.likes !== "number")).toEqual([]);
    expect(items.find((i) => i.excerpt === "post 13")?.latestMetrics).toEqual({ likes: 6, reposts: 1, replies: 0 });

    // A getPosts answer with a count of the wrong type: the failure is recorded; the posts found stay.
    sky.addPost("a newer post", { likes: 3 });
    sky.fail(/^app\.bsky\.feed\.getPosts$/, { body: JSON.stringify({ posts: [{ uri: "at://x/app.bsky.feed.post/1", likeCount: "3" }] }) });
    expect(await collect(made.id, new Date())).toBe("failed");
    const cov = await coverageOf(made.id);
    expect(cov).toMatchObject({ failureCode: "malformed_type", consecutiveFailures: 1 });
    expect(cov.failureMessage).toMatch(/getPosts: posts\[0\]\.likeCount is not a count/);
    const after = await withDb((db) => db.select().from(analyticsContentItems).where(eq(analyticsContentItems.accountId, made.id)));
    expect(after.map((i) => i.excerpt)).toContain("a newer post");
  });
});
