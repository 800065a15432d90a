import { eq, inArray, sql, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  analyticsContentItems,
  analyticsMeasurements,
  auditEvents,
  deliveryAttempts,
  providerCostEvents,
  providerCostMonthlyTotals,
  publications,
  renditions,
  repostActivity,
  repostAttempts,
  repostPolicies,
  retentionWatermarks,
  socialAccounts,
  workspaces,
} from "../db/schema";
import { organizationUsage, providerCostRows } from "../lib/billing/state";
import { newId } from "../lib/ids";
import { MAX_HORIZON_MS } from "../lib/repost/candidates";
import { MEASUREMENTS_SWEEP } from "../lib/retention/measurements";
import { RETENTION } from "../lib/retention/periods";
import { runRetention } from "../lib/retention/run";
import { newUser, newWorkspace, withDb } from "./helpers/harness";

/**
 * Each history sweep (lib/retention) against rows planted around its cutoff by the database's clock: a row ten
 * minutes inside the retention stays, one ten minutes outside goes; other workspaces' rows and the tables the
 * history hangs off stay.
 */
const MARGIN = sql`interval '10 minutes'`;
const inside = (days: number) => sql`now() - make_interval(days => ${days}) + ${MARGIN}`;
const outside = (days: number, extra: SQL = sql`interval '0'`) => sql`now() - make_interval(days => ${days}) - ${MARGIN} - ${extra}`;

/** A workspace with a webhook account, a publication and one rendition of it. */
async function world() {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const ids = { ws, account: newId("acc"), publication: newId("pub"), rendition: newId("rnd"), policy: newId("rpp") };
  await withDb(async (db) => {
    await db.insert(socialAccounts).values({ id: ids.account, workspaceId: ws, platform: "webhook", createdBy: owner.id });
    await db.insert(publications).values({ id: ids.publication, workspaceId: ws, status: "published", sourceText: "history" });
    await db.insert(renditions).values({
      id: ids.rendition,
      publicationId: ids.publication,
      workspaceId: ws,
      socialAccountId: ids.account,
      platform: "webhook",
      position: 0,
      body: "history",
      deliveryKey: newId("dlk"),
    });
    await db
      .insert(repostPolicies)
      .values({ id: ids.policy, workspaceId: ws, name: "history", rule: sql`'{}'::jsonb`, sourceAccountIds: [ids.account], targetAccountIds: [ids.account] });
  });
  return ids;
}

type World = Awaited<ReturnType<typeof world>>;

/** Names of the planted rows still present, sorted. */
function present(planted: Record<string, string>, found: string[]): string[] {
  const left = new Set(found);
  return Object.entries(planted)
    .filter(([, id]) => left.has(id))
    .map(([name]) => name)
    .sort();
}

async function plantHistory(a: World, b: World) {
  const ids = Object.fromEntries(
    [
      "attemptOld",
      "attemptNew",
      "attemptOther",
      "repostOld",
      "repostNew",
      "repostOther",
      "activityOld",
      "activityNew",
      "activityOther",
      "auditOld",
      "auditNew",
      "auditOther",
    ].map((name) => [name, newId("ret")]),
  );
  await withDb(async (db) => {
    const attempt = (id: string, w: World, number: number, startedAt: SQL) => ({
      id,
      renditionId: w.rendition,
      number,
      startedAt,
      finishedAt: startedAt,
      outcome: "succeeded" as const,
    });
    await db
      .insert(deliveryAttempts)
      .values([
        attempt(ids.attemptOld, a, 1, outside(RETENTION.deliveryAttemptsDays)),
        attempt(ids.attemptNew, a, 2, inside(RETENTION.deliveryAttemptsDays)),
        attempt(ids.attemptOther, b, 1, inside(RETENTION.deliveryAttemptsDays)),
      ]);
    const repost = (id: string, w: World, stage: number, createdAt: SQL) => ({
      id,
      workspaceId: w.ws,
      policyId: w.policy,
      renditionId: w.rendition,
      targetAccountId: w.account,
      stage,
      status: "done" as const,
      reason: "history",
      createdAt,
    });
    await db
      .insert(repostAttempts)
      .values([
        repost(ids.repostOld, a, 0, outside(RETENTION.repostAttemptsDays)),
        repost(ids.repostNew, a, 1, inside(RETENTION.repostAttemptsDays)),
        repost(ids.repostOther, b, 0, inside(RETENTION.repostAttemptsDays)),
      ]);
    const activity = (id: string, w: World, at: SQL) => ({
      id,
      workspaceId: w.ws,
      stage: 0,
      action: "repost" as const,
      status: "done" as const,
      reason: "history",
      at,
    });
    await db
      .insert(repostActivity)
      .values([
        activity(ids.activityOld, a, outside(RETENTION.repostActivityDays)),
        activity(ids.activityNew, a, inside(RETENTION.repostActivityDays)),
        activity(ids.activityOther, b, inside(RETENTION.repostActivityDays)),
      ]);
    const audit = (id: string, w: World, occurredAt: SQL) => ({
      id,
      workspaceId: w.ws,
      action: "test.retention",
      targetType: "test",
      targetId: id,
      actorKind: "system",
      occurredAt,
    });
    await db
      .insert(auditEvents)
      .values([
        audit(ids.auditOld, a, outside(RETENTION.auditEventsDays)),
        audit(ids.auditNew, a, inside(RETENTION.auditEventsDays)),
        audit(ids.auditOther, b, inside(RETENTION.auditEventsDays)),
      ]);
  });
  return ids;
}

async function historyLeft(ids: Record<string, string>) {
  const all = Object.values(ids);
  return withDb(async (db) => {
    const found = [
      ...(await db.select({ id: deliveryAttempts.id }).from(deliveryAttempts).where(inArray(deliveryAttempts.id, all))),
      ...(await db.select({ id: repostAttempts.id }).from(repostAttempts).where(inArray(repostAttempts.id, all))),
      ...(await db.select({ id: repostActivity.id }).from(repostActivity).where(inArray(repostActivity.id, all))),
      ...(await db.select({ id: auditEvents.id }).from(auditEvents).where(inArray(auditEvents.id, all))),
    ];
    return present(
      ids,
      found.map((r) => r.id),
    );
  });
}

/**
 * Measurements in series around the cutoff. The watermark is cleared first: these rows are planted in the past,
 * behind where earlier runs (this file's or another's) have walked, whereas real ones arrive at the present and
 * cross the cutoff later.
 */
async function plantMeasurements(a: World, b: World) {
  const days = RETENTION.analyticsMeasurementsDays;
  const ids = Object.fromEntries(
    ["likes1", "likes2", "likes3", "likes4", "views0", "views1", "views2", "followers1", "followers2", "otherLikes", "otherFollowers"].map((name) => [
      name,
      newId("ams"),
    ]),
  );
  const itemA = newId("aci");
  const itemB = newId("aci");
  await withDb(async (db) => {
    await db.delete(retentionWatermarks).where(eq(retentionWatermarks.sweep, MEASUREMENTS_SWEEP));
    const item = (id: string, w: World) => ({
      id,
      workspaceId: w.ws,
      accountId: w.account,
      source: "native" as const,
      externalId: id,
      publishedAt: sql`now() - interval '200 days'`,
    });
    await db.insert(analyticsContentItems).values([item(itemA, a), item(itemB, b)]);
    const m = (id: string, w: World, contentItemId: string | null, metric: string, collectedAt: SQL, value: number | null = 1) => ({
      id,
      workspaceId: w.ws,
      accountId: w.account,
      contentItemId,
      metric,
      value,
      availability: value === null ? ("unavailable" as const) : ("available" as const),
      unavailableReason: value === null ? "not-provided" : null,
      collectedAt,
      source: "test",
    });
    const d = (n: number) => sql`make_interval(days => ${n})`;
    await db.insert(analyticsMeasurements).values([
      // likes: two superseded before the cutoff go; the last before the cutoff (the baseline) and the one inside stay.
      m(ids.likes1, a, itemA, "likes", outside(days, d(30))),
      m(ids.likes2, a, itemA, "likes", outside(days, d(10))),
      m(ids.likes3, a, itemA, "likes", outside(days)),
      m(ids.likes4, a, itemA, "likes", inside(days)),
      // views: the newest available one stays though an unavailable one followed it; an older unavailable one goes.
      m(ids.views0, a, itemA, "views", outside(days, d(30)), null),
      m(ids.views1, a, itemA, "views", outside(days, d(20))),
      m(ids.views2, a, itemA, "views", outside(days, d(5)), null),
      // An account-level series.
      m(ids.followers1, a, null, "followers", outside(days, d(20))),
      m(ids.followers2, a, null, "followers", outside(days)),
      // Another workspace: each is the only one of its series, however old.
      m(ids.otherLikes, b, itemB, "likes", outside(days, d(40))),
      m(ids.otherFollowers, b, null, "followers", outside(days, d(40))),
    ]);
  });
  return { ids, items: [itemA, itemB] };
}

const measurementsLeft = (ids: Record<string, string>) =>
  withDb(async (db) =>
    present(
      ids,
      (
        await db
          .select({ id: analyticsMeasurements.id })
          .from(analyticsMeasurements)
          .where(inArray(analyticsMeasurements.id, Object.values(ids)))
      ).map((r) => r.id),
    ),
  );

describe("retention sweeps (lib/retention)", () => {
  it("keeps repost attempts longer than any policy can still act on a post, and measurements longer than the analytics window", () => {
    expect(RETENTION.repostAttemptsDays * 86_400_000).toBeGreaterThan(MAX_HORIZON_MS);
    expect(RETENTION.analyticsMeasurementsDays).toBeGreaterThan(RETENTION.analyticsWindowDays);
  });

  it("delivery attempts, repost attempts and activity, and audit events go after their retention, and nothing else", async () => {
    const [a, b] = [await world(), await world()];
    const ids = await plantHistory(a, b);
    const report = await withDb((db) => runRetention(db));
    // Every sweep ran (a failed one is missing from the report); the counts may include other files' rows, or
    // miss rows a concurrent run (the outbox relay's) took first, so the rows themselves are what is checked.
    for (const table of ["deliveryAttempts", "repostAttempts", "repostActivity", "auditEvents"]) expect(report[table], table).toEqual(expect.any(Number));
    expect(await historyLeft(ids)).toEqual([
      "activityNew",
      "activityOther",
      "attemptNew",
      "attemptOther",
      "auditNew",
      "auditOther",
      "repostNew",
      "repostOther",
    ]);
    // The rows the history hangs off are untouched.
    await withDb(async (db) => {
      for (const w of [a, b]) {
        expect(await db.select({ id: renditions.id }).from(renditions).where(eq(renditions.id, w.rendition))).toHaveLength(1);
        expect(await db.select({ id: repostPolicies.id }).from(repostPolicies).where(eq(repostPolicies.id, w.policy))).toHaveLength(1);
        expect(await db.select({ id: publications.id }).from(publications).where(eq(publications.id, w.publication))).toHaveLength(1);
      }
    });
    // Idempotent: another run finds nothing more of these.
    await withDb((db) => runRetention(db));
    expect(await historyLeft(ids)).toHaveLength(8);
  });

  it("analytics measurements: superseded ones past the cutoff go; each series keeps its latest, its baseline and the window", async () => {
    const [a, b] = [await world(), await world()];
    const { ids, items } = await plantMeasurements(a, b);
    const report = await withDb((db) => runRetention(db));
    expect(report.analyticsMeasurements).toEqual(expect.any(Number));
    expect(await measurementsLeft(ids)).toEqual(["followers2", "likes3", "likes4", "otherFollowers", "otherLikes", "views1", "views2"]);
    await withDb((db) => runRetention(db));
    expect(await measurementsLeft(ids)).toHaveLength(7);
    const kept = await withDb((db) => db.select({ id: analyticsContentItems.id }).from(analyticsContentItems).where(inArray(analyticsContentItems.id, items)));
    expect(kept).toHaveLength(2);
  });

  it("analytics measurements: a run walks from its watermark, in bounded batches", async () => {
    const [a, b] = [await world(), await world()];
    const { ids } = await plantMeasurements(a, b);
    // Batches of 2, two per run: a run walks at most 4 rows past the cutoff, and the planted ones (with any other
    // old ones) are worked off over several runs.
    const expected = ["followers2", "likes3", "likes4", "otherFollowers", "otherLikes", "views1", "views2"];
    let runs = 0;
    do {
      const report = await withDb((db) => runRetention(db, { batchSize: 2, maxBatches: 2 }));
      expect(report.analyticsMeasurementsWalked).toBeLessThanOrEqual(4);
      runs++;
    } while ((await measurementsLeft(ids)).join() !== expected.join() && runs < 100);
    expect(await measurementsLeft(ids)).toEqual(expected);
  });

  it("provider cost events of months past the retention fold into monthly totals; billing's sums do not change", async () => {
    const owner = await newUser();
    const [ws, other] = [await newWorkspace(owner), await newWorkspace(owner)];
    const { organizationId, foldBefore, periodStart } = await withDb(async (db) => {
      const [w] = await db.select({ organizationId: workspaces.organizationId }).from(workspaces).where(eq(workspaces.id, ws));
      const boundary = await db.execute<{ fold_before: string; period_start: string }>(
        sql`select (date_trunc('month', (now() - make_interval(days => ${RETENTION.providerCostEventsDays})) at time zone 'UTC') at time zone 'UTC')::text as fold_before,
          (date_trunc('month', now() at time zone 'UTC') at time zone 'UTC')::text as period_start`,
      );
      return { organizationId: w.organizationId, foldBefore: new Date(boundary.rows[0].fold_before), periodStart: new Date(boundary.rows[0].period_start) };
    });
    const oldMonth = new Date(Date.UTC(foldBefore.getUTCFullYear(), foldBefore.getUTCMonth() - 1, 1));
    const at = (d: Date, minutes: number) => new Date(d.getTime() + minutes * 60_000);
    const ids = Object.fromEntries(["old1", "old2", "oldReserved", "oldReleased", "boundary", "current", "otherCurrent"].map((n) => [n, newId("pce")]));
    const event = (id: string, workspaceId: string, status: "committed" | "reserved" | "released", createdAt: Date, cost: number) => ({
      id,
      workspaceId,
      provider: "openai",
      operation: "generate",
      units: cost / 10,
      costMicrousd: cost,
      status,
      createdAt,
    });
    await withDb(async (db) => {
      await db
        .insert(providerCostEvents)
        .values([
          event(ids.old1, ws, "committed", at(oldMonth, 10), 1000),
          event(ids.old2, ws, "committed", at(foldBefore, -10), 2000),
          event(ids.oldReserved, ws, "reserved", at(oldMonth, 20), 300),
          event(ids.oldReleased, ws, "released", at(oldMonth, 30), 50),
          event(ids.boundary, ws, "committed", at(foldBefore, 10), 4000),
          event(ids.current, ws, "committed", at(periodStart, 1), 500),
          event(ids.otherCurrent, other, "reserved", at(periodStart, 2), 70),
        ]);
      // A total an earlier fold left for the same month: the fold adds to it.
      await db
        .insert(providerCostMonthlyTotals)
        .values({ workspaceId: ws, month: oldMonth, provider: "openai", operation: "generate", status: "committed", events: 2, units: 10, costMicrousd: 100 });
    });
    const sums = () =>
      withDb(async (db) => ({
        sinceOldMonth: await providerCostRows(db, organizationId, oldMonth),
        thisPeriod: await providerCostRows(db, organizationId, periodStart),
        usageSinceOldMonth: (await organizationUsage(db, organizationId, oldMonth)).ai_budget_microusd,
        usageThisPeriod: (await organizationUsage(db, organizationId, periodStart)).ai_budget_microusd,
      }));
    const before = await sums();
    expect(before.usageSinceOldMonth).toBe(100 + 1000 + 2000 + 300 + 4000 + 500 + 70);

    const report = await withDb((db) => runRetention(db));
    expect(report.providerCostEvents).toEqual(expect.any(Number));
    expect(await sums()).toEqual(before);
    const left = await withDb((db) =>
      db
        .select({ id: providerCostEvents.id })
        .from(providerCostEvents)
        .where(inArray(providerCostEvents.id, Object.values(ids))),
    );
    expect(
      present(
        ids,
        left.map((r) => r.id),
      ),
    ).toEqual(["boundary", "current", "otherCurrent"]);
    const totals = await withDb((db) =>
      db
        .select({ status: providerCostMonthlyTotals.status, events: providerCostMonthlyTotals.events, cost: providerCostMonthlyTotals.costMicrousd })
        .from(providerCostMonthlyTotals)
        .where(eq(providerCostMonthlyTotals.workspaceId, ws))
        .orderBy(providerCostMonthlyTotals.status),
    );
    expect(totals).toEqual([
      { status: "committed", events: 4, cost: 3100 },
      { status: "released", events: 1, cost: 50 },
      { status: "reserved", events: 1, cost: 300 },
    ]);
    // Idempotent.
    await withDb((db) => runRetention(db));
    expect(await sums()).toEqual(before);
  });
});
