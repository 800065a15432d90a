import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import {
  analyticsCollectionRuns,
  analyticsContentItems,
  analyticsCoverage,
  analyticsMeasurements,
  outboxJobs,
  renditions,
  workspaceMembers,
} from "../db/schema";
import { queueDueAccounts } from "../lib/analytics/schedule";
import { drainQueue } from "../lib/jobs/consumer";
import { relayOutbox } from "../lib/jobs/outbox";
import type { Env } from "../lib/env";
import { ensureQueues } from "../local/services/sqs";
import { analyticsRefresh } from "../lib/analytics/refresh-job";
import { env, expectProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { startPds, type PdsPeer } from "./peers/bluesky-pds";
import { startMastodon, type MastodonPeer } from "./peers/mastodon-server";

/**
 * POST /analytics/refresh → outbox → SQS → queues/analytics-refresh.ts → GET /analytics.
 * Mastodon is the documented-behaviour TEST DOUBLE in test/peers/mastodon-server.ts (no Mastodon server can
 * run here): verify_credentials with followers_count, account statuses with favourites/reblogs/replies
 * counts and max_id paging, and 429 answers carrying Mastodon's X-RateLimit-* headers. Bluesky is a REAL
 * PDS (@atproto/pds) started locally; it has no AppView, so counts and followers must come back
 * unavailable with that reason, never as zero. Queues of this file's own (the analytics queue is shared).
 */

let e: Env;
let mastodon: MastodonPeer;
let pds: PdsPeer;
let owner: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  e = { ...env, ...(await ensureQueues(env, `analytics-${Date.now()}-`)) } as Env;
  [mastodon, pds, owner] = await Promise.all([startMastodon(), startPds(), newUser()]);
}, 90_000);
afterAll(async () => {
  await Promise.all([mastodon?.stop(), pds?.stop()]);
});

async function call(method: string, path: string, json?: unknown, token = owner.token) {
  const res = await gateway.request(
    path,
    { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: json === undefined ? undefined : JSON.stringify(json) },
    e,
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

async function connectMastodon(ws: string, followers: number) {
  const me = mastodon.addAccount(`stats${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
  mastodon.setFollowers(me.id, followers);
  const res = await call("POST", "/accounts", { workspace_id: ws, platform: "mastodon", instance_url: mastodon.url, access_token: me.token });
  expect(res.status, res.text).toBe(201);
  return { me, accountId: res.body.id as string };
}

/** Send this workspace's analytics jobs and consume them until none is left unprocessed. */
async function collect(ws: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pending = await withDb((db) =>
      db
        .select({ id: outboxJobs.id })
        .from(outboxJobs)
        .where(and(eq(outboxJobs.workspaceId, ws), eq(outboxJobs.kind, "analytics.refresh"))),
    );
    await withDb((db) => relayOutbox(db, e, { ids: pending.map((p) => p.id) }));
    await drainQueue(e, analyticsRefresh, { waitSeconds: 1, budgetMs: 3000 });
    const done = await withDb(async (db) =>
      Number(
        (
          await db.execute(
            sql`select count(*) as n from job_receipts where job_id in (select id from outbox_jobs where workspace_id = ${ws} and kind = 'analytics.refresh')`,
          )
        ).rows[0].n,
      ),
    );
    if (done >= pending.length) return;
    if (Date.now() > deadline) throw new Error("analytics jobs not consumed in time");
  }
}

const coverageOf = (accountId: string) =>
  withDb(async (db) => (await db.select().from(analyticsCoverage).where(eq(analyticsCoverage.accountId, accountId)))[0]);
const itemsOf = (accountId: string) => withDb((db) => db.select().from(analyticsContentItems).where(eq(analyticsContentItems.accountId, accountId)));
/** As if time had passed: the account is due, and any backoff is over. */
const makeEligible = (accountId: string) =>
  withDb((db) =>
    db
      .update(analyticsCoverage)
      .set({ nextEligibleAt: new Date(Date.now() - 1000), backoffUntil: null })
      .where(eq(analyticsCoverage.accountId, accountId)),
  );

describe("analytics collection", () => {
  it("queues one job per collectable account with the run, and collects Mastodon followers and status counts", async () => {
    const ws = await newWorkspace(owner);
    const { me, accountId } = await connectMastodon(ws, 42);
    await call("POST", "/accounts", { workspace_id: ws, platform: "webhook", url: "http://127.0.0.1:9/hook" });
    // A status Herald published (its rendition names it) and two made outside Herald.
    const pub = await call("POST", "/publications", {
      workspace_id: ws,
      title: "Ours",
      source_text: "Posted by Herald",
      destinations: [{ social_account_id: accountId }],
    });
    const ours = mastodon.addStatus(me.id, "Posted by Herald");
    await withDb((db) =>
      db
        .update(renditions)
        .set({ status: "published", externalId: ours.id, externalUrl: ours.url, publishedAt: new Date() })
        .where(eq(renditions.id, pub.body.renditions[0].id)),
    );
    const theirs = mastodon.addStatus(me.id, "Made elsewhere & shared");
    mastodon.addStatus(me.id, "Another one");
    mastodon.setCounts(ours.id, { favourites: 7, reblogs: 2 });
    mastodon.setCounts(theirs.id, { favourites: 1, reblogs: 0 });
    const fan = mastodon.addAccount("fan");
    mastodon.mention(fan.id, me.id, "nice", ours.id); // one reply to ours

    const res = await call("POST", "/analytics/refresh", { workspace_id: ws });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ queued: 1, message: "Collection queued for 1 account." });
    const jobs = await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.workspaceId, ws)));
    expect(jobs.map((j) => j.payload)).toEqual([{ run_id: expect.any(String), account_id: accountId }]);

    await collect(ws);
    const [run] = await withDb((db) => db.select().from(analyticsCollectionRuns).where(eq(analyticsCollectionRuns.workspaceId, ws)));
    expect(run).toMatchObject({ status: "completed", accountsQueued: 1, accountsCollected: 1 });

    const o = (await call("GET", `/analytics?workspace_id=${ws}&days=7`)).body;
    expect(o.summary.followers).toEqual({ value: 42, delta: 0, measured: 1 });
    expect(o.content_total).toBe(3);
    const byText = Object.fromEntries(o.content.map((c: any) => [c.reference.account_content_id, c]));
    expect(byText[ours.id]).toMatchObject({
      source: "native",
      publication_id: pub.body.id,
      rendition_id: pub.body.renditions[0].id,
      engagement: 10,
      metrics: { likes: 7, reposts: 2, replies: 1 },
      external_url: ours.url,
    });
    expect(byText[ours.id].measurements.views).toMatchObject({ availability: "unavailable", value: null, reason: "not_offered_by_mastodon" });
    expect(byText[ours.id].metric_metadata.likes).toMatchObject({ source: "mastodon_api", aggregation: "current_snapshot", unit: "count" });
    expect(byText[theirs.id]).toMatchObject({ source: "external", excerpt: "Made elsewhere & shared", engagement: 1 });
    expect(o.publications[0]).toMatchObject({ publication_id: pub.body.id, engagement: 10 });
    const cov = Object.fromEntries(o.coverage.map((c: any) => [c.platform, c]));
    expect(cov.mastodon).toMatchObject({
      status: "complete",
      initial_items_discovered: 3,
      failure_code: null,
      last_success_at: expect.any(String),
      initial_completed_at: expect.any(String),
    });
    expect(cov.webhook).toMatchObject({ status: "unsupported" });
    expect(o.accounts.find((a: any) => a.platform === "webhook")).toMatchObject({ account_supported: false, content_supported: false });

    // Collecting again refreshes values without duplicating items.
    mastodon.setCounts(theirs.id, { favourites: 5, reblogs: 1 });
    await call("POST", "/analytics/refresh", { workspace_id: ws });
    await collect(ws);
    expect(await itemsOf(accountId)).toHaveLength(3);
    expect((await itemsOf(accountId)).find((i) => i.externalId === theirs.id)).toMatchObject({ engagement: 6 });

    // A token without the read scopes (Mastodon answers 403): the account shows which scopes are missing.
    await makeEligible(accountId);
    mastodon.failReadsNext(1, 403);
    await withDb((db) => queueDueAccounts(db, new Date(), { workspaceId: ws }));
    await collect(ws);
    const scoped = (await call("GET", `/analytics?workspace_id=${ws}`)).body.accounts.find((a: any) => a.platform === "mastodon");
    expect(scoped).toMatchObject({
      status: "error",
      error_code: "missing_scope",
      missing_account_scopes: ["read:accounts"],
      missing_content_scopes: ["read:statuses"],
    });

    // Strangers do not see the workspace; viewers may not queue collection.
    const stranger = await newUser();
    expectProblem(await call("POST", "/analytics/refresh", { workspace_id: ws }, stranger.token), 404, "not-found");
    const viewer = await newUser();
    await withDb((db) => db.insert(workspaceMembers).values({ workspaceId: ws, userId: viewer.id, role: "viewer" }));
    expectProblem(await call("POST", "/analytics/refresh", { workspace_id: ws }, viewer.token), 403, "forbidden");
  });

  it("a 429 with Mastodon's rate-limit headers marks only that account; the Bluesky account is collected from its PDS", async () => {
    const ws = await newWorkspace(owner);
    const { accountId: mastodonId } = await connectMastodon(ws, 5);
    const who = await pds.createAccount("stats");
    for (const text of ["first post", "second post"]) {
      const made = await pds.post(
        "com.atproto.repo.createRecord",
        { repo: who.did, collection: "app.bsky.feed.post", record: { $type: "app.bsky.feed.post", text, createdAt: new Date().toISOString() } },
        who.accessJwt,
      );
      expect(made.status).toBe(200);
    }
    const sky = await call("POST", "/accounts", {
      workspace_id: ws,
      platform: "bluesky",
      instance_url: pds.url,
      identifier: who.handle,
      app_password: who.appPassword,
    });
    expect(sky.status, sky.text).toBe(201);
    const reset = new Date(Date.now() + 5 * 60_000);
    reset.setMilliseconds(0);
    mastodon.failReadsNext(1, 429, { "x-ratelimit-limit": "300", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset.toISOString() });

    expect((await call("POST", "/analytics/refresh", { workspace_id: ws })).body.queued).toBe(2);
    await collect(ws);
    const [run] = await withDb((db) => db.select().from(analyticsCollectionRuns).where(eq(analyticsCollectionRuns.workspaceId, ws)));
    expect(run).toMatchObject({ status: "completed", accountsCollected: 2 });

    const m = await coverageOf(mastodonId);
    expect(m).toMatchObject({ status: "failed", failureCode: "rate_limited", consecutiveFailures: 1 });
    expect(m.nextEligibleAt?.getTime()).toBe(reset.getTime()); // when Mastodon said to come back

    const b = await coverageOf(sky.body.id);
    expect(b).toMatchObject({ status: "complete", failureCode: null, initialItemsDiscovered: 2 });
    const posts = await itemsOf(sky.body.id);
    expect(posts.map((p) => p.excerpt).sort()).toEqual(["first post", "second post"]);
    expect(posts.every((p) => p.source === "external" && p.externalId.startsWith(`at://${who.did}/app.bsky.feed.post/`))).toBe(true);
    // No AppView behind this PDS: counts and followers are unavailable with the reason, never zero.
    const rows = await withDb((db) => db.select().from(analyticsMeasurements).where(eq(analyticsMeasurements.accountId, sky.body.id)));
    expect(rows.length).toBe(2 * 4 + 1);
    expect(rows.every((r) => r.availability === "unavailable" && r.value === null)).toBe(true);
    expect(rows.find((r) => r.metric === "followers")).toMatchObject({ unavailableReason: "appview_unavailable" });
    expect(rows.find((r) => r.metric === "likes")).toMatchObject({ unavailableReason: "appview_unavailable" });
    expect(rows.find((r) => r.metric === "views")).toMatchObject({ unavailableReason: "not_offered_by_bluesky" });

    const o = (await call("GET", `/analytics?workspace_id=${ws}`)).body;
    expect(o.summary.engagement).toEqual({ value: 0, delta: 0, measured: 0 });
    const acc = Object.fromEntries(o.accounts.map((a: any) => [a.platform, a]));
    expect(acc.mastodon).toMatchObject({ status: "error", error_code: "rate_limited" });
    expect(acc.bluesky.metrics).toEqual({});
    expect(acc.bluesky.metric_metadata.followers).toMatchObject({ source: "bluesky_appview" });
    const item = o.content[0];
    expect(item).toMatchObject({ platform: "bluesky", metric_availability: "unavailable", metrics: {} });
    expect(item.measurements.likes).toMatchObject({ availability: "unavailable", value: null, reason: "appview_unavailable" });
  });

  it("covers a large account over several runs within the read budget; a failure mid-run keeps what was read", async () => {
    const ws = await newWorkspace(owner);
    const { me, accountId } = await connectMastodon(ws, 1);
    const start = Date.now() - 300 * 3_600_000;
    for (let i = 0; i < 300; i++) mastodon.addStatus(me.id, `post ${i}`, new Date(start + i * 3_600_000));

    // Run 1: verify_credentials + the newest page + four older pages = six reads, 200 statuses.
    expect(await withDb((db) => queueDueAccounts(db, new Date(), { workspaceId: ws }))).toHaveLength(1);
    await collect(ws);
    let cov = await coverageOf(accountId);
    expect(cov).toMatchObject({ status: "backfilling", initialItemsDiscovered: 200, initialCompletedAt: null, failureCode: null });
    expect(cov.backfillWatermark?.getTime()).toBe(start + 100 * 3_600_000);
    expect(cov.nextEligibleAt!.getTime()).toBeGreaterThan(Date.now());
    // Not eligible yet: the scheduler does not queue it again.
    expect(await withDb((db) => queueDueAccounts(db, new Date(), { workspaceId: ws }))).toEqual([]);

    // Run 2: the first older page fails (500) after verify_credentials and the newest page.
    await makeEligible(accountId);
    mastodon.failReadsNext(1, 500, {}, 2);
    expect(await withDb((db) => queueDueAccounts(db, new Date(), { workspaceId: ws }))).toHaveLength(1);
    await collect(ws);
    cov = await coverageOf(accountId);
    expect(cov).toMatchObject({ status: "backfilling", failureCode: "http_500", consecutiveFailures: 1, initialItemsDiscovered: 200 });
    expect(cov.backfillWatermark?.getTime()).toBe(start + 100 * 3_600_000);
    expect(await itemsOf(accountId)).toHaveLength(200);

    // Run 3 resumes from the watermark and finishes discovery.
    await makeEligible(accountId);
    expect(await withDb((db) => queueDueAccounts(db, new Date(), { workspaceId: ws }))).toHaveLength(1);
    await collect(ws);
    cov = await coverageOf(accountId);
    expect(cov).toMatchObject({ status: "complete", failureCode: null, consecutiveFailures: 0, initialItemsDiscovered: 300, backfillCursor: null });
    expect(cov.backfillWatermark?.getTime()).toBe(start);
    expect(cov.initialCompletedAt).toBeInstanceOf(Date);
    const items = await itemsOf(accountId);
    expect(items).toHaveLength(300);
    expect(new Set(items.map((i) => i.externalId)).size).toBe(300);
  });
});
