import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api, expectProblem as expectRawProblem, withDb } from "./helpers/harness";
import type { paths } from "./helpers/api-types";
import { client } from "./helpers/client";
import { expectData, expectProblem, type Problem, type Schemas } from "./helpers/typed";
import { newAccount } from "./helpers/publishing";
import { newTeam } from "./helpers/team";
import { daysAgo, seedCoverage, seedFollowers, seedItem } from "./helpers/analytics";

/** Direct SQL over the measurements the test wrote (not the roll-ups the API reads). */
async function direct(ws: string, fromDaysAgo: number, toDaysAgo: number, source?: string) {
  return withDb(async (db) => {
    const r = await db.execute(sql`
      with s as (select i.id from analytics_content_items i where i.workspace_id = ${ws}
          and i.published_at > now() - make_interval(days => ${fromDaysAgo}) and i.published_at <= now() - make_interval(days => ${toDaysAgo})
          ${source ? sql`and i.source = ${source}` : sql``}),
        latest as (select distinct on (m.content_item_id, m.metric) m.content_item_id, m.metric, m.value from analytics_measurements m
          join s on s.id = m.content_item_id where m.availability = 'available' order by m.content_item_id, m.metric, m.collected_at desc)
      select (select count(*) from s)::int as published,
        coalesce((select sum(value) from latest where metric in ('likes','reposts','replies')), 0)::float8 as engagement,
        (select count(distinct content_item_id) from latest where metric in ('likes','reposts','replies'))::int as engagement_measured,
        coalesce((select sum(value) from latest where metric = 'views'), 0)::float8 as views,
        (select count(*) from latest where metric = 'views')::int as views_measured,
        coalesce((select sum(value) from latest where metric = 'impressions'), 0)::float8 as impressions`);
    return r.rows[0] as Record<string, number>;
  });
}

async function directOrder(ws: string, days: number, sort: "engagement" | "views" | "newest") {
  return withDb(async (db) => {
    const key = {
      engagement: sql`coalesce((select sum(x.value) from (select distinct on (m.metric) m.value from analytics_measurements m where m.content_item_id = i.id and m.metric in ('likes','reposts','replies') and m.availability = 'available' order by m.metric, m.collected_at desc) x), 0)`,
      views: sql`coalesce((select m.value from analytics_measurements m where m.content_item_id = i.id and m.metric = 'views' and m.availability = 'available' order by m.collected_at desc limit 1), -1)`,
      newest: sql`extract(epoch from i.published_at)`,
    }[sort];
    const r = await db.execute<{ id: string }>(
      sql`select i.id from analytics_content_items i where i.workspace_id = ${ws} and i.published_at > now() - make_interval(days => ${days}) order by ${key} desc, i.id desc`,
    );
    return r.rows.map((x) => x.id);
  });
}

async function setup() {
  const team = await newTeam();
  const mastodon = await newAccount(team.ws, team.owner.id, "mastodon", { username: "masto" });
  const bluesky = await newAccount(team.ws, team.owner.id, "bluesky", { username: "sky" });
  const hook = await newAccount(team.ws, team.owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
  return { ...team, mastodon, bluesky, hook };
}

type OverviewQuery = Omit<paths["/analytics"]["get"]["parameters"]["query"], "workspace_id">;
const overview = (token: string, ws: string, query: OverviewQuery = {}) =>
  client(token).GET("/analytics", { params: { query: { workspace_id: ws, ...query } } });

describe("GET /analytics", () => {
  it("computes summary, deltas, follower series, trends, content, insights and coverage matching direct SQL", async () => {
    const { owner, viewer, ws, mastodon, bluesky, hook } = await setup();
    await seedItem(ws, mastodon, {
      externalId: "m1",
      publishedAt: daysAgo(1),
      metrics: { likes: 5, reposts: 2, replies: 1, views: 100 },
      collectedAt: daysAgo(0.5),
    });
    const m2 = await seedItem(ws, mastodon, { externalId: "m2", publishedAt: daysAgo(3), metrics: { likes: 1, views: 900, impressions: 50 } });
    await seedItem(ws, bluesky, { externalId: "b1", publishedAt: daysAgo(2), metrics: { likes: 20, reposts: 4, views: null } });
    await seedItem(ws, bluesky, { externalId: "b2", publishedAt: daysAgo(6.9), source: "external", metrics: { likes: 3 }, measurementSource: "import" });
    await seedItem(ws, mastodon, { externalId: "old", publishedAt: daysAgo(10), metrics: { likes: 7, views: 70 } }); // previous 7-day period
    await seedItem(ws, mastodon, { externalId: "older", publishedAt: daysAgo(20), metrics: { likes: 100 } }); // outside both
    // A later measurement of m2 supersedes the first.
    await withDb((db) =>
      db.execute(sql`insert into analytics_measurements (id, workspace_id, account_id, content_item_id, metric, value, collected_at, source)
      values ('ams_later', ${ws}, ${mastodon}, ${m2}, 'likes', 9, now(), 'mastodon_api')`),
    );
    await withDb(async (db) => (await import("../lib/analytics/store")).refreshRollups(db, [m2]));
    await seedFollowers(ws, mastodon, [
      [daysAgo(9), 100],
      [daysAgo(3), 110],
      [daysAgo(1), 125],
    ]);
    await seedFollowers(ws, bluesky, [[daysAgo(2), 40]]);
    await seedCoverage(ws, mastodon, {
      status: "complete",
      lastSuccessAt: new Date(),
      lastAttemptedAt: new Date(),
      nextEligibleAt: daysAgo(-1),
      initialItemsDiscovered: 4,
    });
    await seedCoverage(ws, bluesky, { status: "failed", failureCode: "rate_limited", failureMessage: "429 from the provider", lastAttemptedAt: new Date() });

    const o = expectData(await overview(viewer.token, ws, { days: 7 }));
    expect(o.$schema).toMatch(/Overview\.json$/);
    expect(o).toMatchObject({ range_days: 7, source: "all", account_growth_scope: "account_wide", content_total: 4 });

    const cur = await direct(ws, 7, 0);
    const prev = await direct(ws, 14, 7);
    expect(cur).toMatchObject({ published: 4, engagement: 5 + 2 + 1 + 9 + 20 + 4 + 3 });
    expect(o.summary.published).toBe(cur.published);
    expect(o.summary.engagement).toEqual({ value: cur.engagement, delta: cur.engagement - prev.engagement, measured: cur.engagement_measured });
    expect(o.summary.views).toEqual({ value: cur.views, delta: cur.views - prev.views, measured: cur.views_measured });
    expect(o.summary.impressions).toEqual({ value: cur.impressions, delta: cur.impressions - prev.impressions, measured: 1 });
    expect(o.summary.reach).toEqual({ value: 0, delta: 0, measured: 0 });
    // Followers: latest 125 + 40; delta from the baseline before the range (100) and bluesky's first value.
    expect(o.summary.followers).toEqual({ value: 165, delta: 25, measured: 2 });
    expect(o.summary.follower_scope).toBe("account_wide");

    const acc = Object.fromEntries(o.accounts.map((a) => [a.platform, a]));
    expect(acc.mastodon).toMatchObject({
      username: "masto",
      status: "ok",
      stale: false,
      follower_delta: 25,
      metrics: { followers: 125 },
      account_supported: true,
    });
    expect(acc.mastodon.follower_series).toHaveLength(8); // the range's first day to today
    expect(acc.mastodon.follower_series.at(-1)?.value).toBe(125);
    expect(acc.mastodon.follower_series[0].value).toBe(100);
    expect(acc.mastodon.metric_metadata.followers).toMatchObject({ aggregation: "current_snapshot", unit: "count", source: "mastodon_api", scale: 1 });
    expect(acc.bluesky).toMatchObject({ status: "error", error_code: "rate_limited", stale: true });
    expect(acc.webhook).toMatchObject({ account_supported: false, content_supported: false, status: "unsupported" });
    expect(o.follower_series.at(-1)).toMatchObject({ value: 165 });

    const sqlOrder = await directOrder(ws, 7, "engagement");
    expect(o.content.map((c) => c.reference.account_content_id)).toEqual(["b1", "m2", "m1", "b2"]); // 24, 9 (the later likes), 8, 3
    const ids = await withDb(
      async (db) =>
        (await db.execute<{ id: string; external_id: string }>(sql`select id, external_id from analytics_content_items where workspace_id = ${ws}`)).rows,
    );
    const idOf = Object.fromEntries(ids.map((r) => [r.external_id, r.id]));
    expect(o.content.map((c) => idOf[c.reference.account_content_id])).toEqual(sqlOrder);
    const b1 = o.content[0];
    expect(b1).toMatchObject({
      platform: "bluesky",
      username: "sky",
      source: "native",
      engagement: 24,
      metrics: { likes: 20, reposts: 4 },
      metric_availability: "partial",
    });
    expect(b1.measurements.views).toMatchObject({ availability: "unavailable", value: null, reason: "not_offered" });
    expect(o.content.find((c) => c.reference.account_content_id === "b2")).toMatchObject({
      source: "external",
      reference: { type: "external", account_content_id: "b2" },
    });

    // Trends: every day of the range; each day's value is the content published that day.
    expect(o.trends.engagement).toHaveLength(8);
    expect(o.trends.engagement.reduce((n, p) => n + p.value, 0)).toBe(cur.engagement);
    expect(o.trends.views.reduce((n, p) => n + p.value, 0)).toBe(cur.views);
    const b1Day = o.trends.engagement.find((p) => p.date === b1.published_at?.slice(0, 10));
    expect(b1Day?.items[0]).toMatchObject({ key: idOf.b1, platform: "bluesky", value: 24 });

    expect(o.insights[0]).toMatchObject({
      kind: "most_engagement_actions",
      status: "available",
      value: 24,
      account_id: bluesky,
      comparison_sample: 4,
      measured_count: 4,
      caveat: "filtered_content_lifetime_totals",
    });
    expect(o.insights[0].content?.reference.account_content_id).toBe("b1");

    const cov = Object.fromEntries(o.coverage.map((c) => [c.platform, c]));
    expect(cov.mastodon).toMatchObject({ status: "complete", initial_items_discovered: 4 });
    expect(cov.bluesky).toMatchObject({ status: "failed", failure_code: "rate_limited" });
    expect(cov.webhook).toMatchObject({ status: "unsupported", next_eligible_at: null });
    expect(hook).toBeTruthy();

    // Source filter: content and totals follow it, account growth does not.
    const ext = expectData(await overview(owner.token, ws, { days: 7, source: "external" }));
    const extSql = await direct(ws, 7, 0, "external");
    expect(ext.content_total).toBe(extSql.published);
    expect(ext.summary.engagement.value).toBe(extSql.engagement);
    expect(ext.summary.followers).toEqual(o.summary.followers);

    // 30 days takes in `old`; 90 takes `older`.
    for (const days of [30, 90] as const) {
      const body = expectData(await overview(owner.token, ws, { days }));
      const d = await direct(ws, days, 0);
      expect(body.summary.engagement.value).toBe(d.engagement);
      expect(body.content_total).toBe(d.published);
    }
    // Views and newest order match SQL too.
    for (const sort of ["views", "newest"] as const) {
      const body = expectData(await overview(owner.token, ws, { days: 90, sort }));
      expect(body.content.map((c) => idOf[c.reference.account_content_id])).toEqual(await directOrder(ws, 90, sort));
    }
  });

  it("pages content with a cursor bound to the filter, stable under new measurements", async () => {
    const { owner, ws, mastodon } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await seedItem(ws, mastodon, { externalId: `p${i}`, publishedAt: daysAgo(1 + i / 10), metrics: { likes: i * 10 } }));
    const first = expectData(await overview(owner.token, ws, { limit: 3 }));
    expect(first.content.map((c) => c.engagement)).toEqual([60, 50, 40]);
    expect(first.content_next_cursor).toEqual(expect.any(String));
    // A new measurement lifts p0 (engagement 0, not yet shown) above everything after the first page was taken.
    await withDb(async (db) => {
      await db.execute(sql`insert into analytics_measurements (id, workspace_id, account_id, content_item_id, metric, value, collected_at, source)
        values ('ams_jump_' || ${ids[0]}, ${ws}, ${mastodon}, ${ids[0]}, 'likes', 1000, now() + interval '1 second', 'mastodon_api')`);
      await (await import("../lib/analytics/store")).refreshRollups(db, [ids[0]]);
    });
    const seen = first.content.map((c) => c.reference.account_content_id);
    let cursor = first.content_next_cursor;
    while (cursor) {
      const next = expectData(await overview(owner.token, ws, { limit: 3, cursor }));
      seen.push(...next.content.map((c) => c.reference.account_content_id));
      cursor = next.content_next_cursor;
    }
    // Every item exactly once, in the snapshot's order.
    expect(seen).toEqual(["p6", "p5", "p4", "p3", "p2", "p1", "p0"]);
    // A fresh listing sees the new measurement.
    expect((await overview(owner.token, ws, { limit: 1 })).data?.content[0].reference.account_content_id).toBe("p0");

    const others: OverviewQuery[] = [{ source: "native" }, { sort: "newest" }, { days: 7 }, { account_id: mastodon }];
    for (const other of others) {
      const res = await overview(owner.token, ws, { limit: 3, cursor: first.content_next_cursor ?? undefined, ...other });
      expect(expectProblem(res, 422, "validation-error").errors?.[0].location).toBe("query.cursor");
    }
    expectProblem(await overview(owner.token, ws, { cursor: "bm90LWEtY3Vyc29y" }), 422, "validation-error");

    // Newest first pages by publication time (epoch milliseconds beyond int4 in the cursor).
    const newest: string[] = [];
    let c: string | null = "";
    do {
      const res: Schemas["Overview"] = expectData(await overview(owner.token, ws, { sort: "newest", limit: 2, ...(c ? { cursor: c } : {}) }));
      newest.push(...res.content.map((x) => x.reference.account_content_id));
      c = res.content_next_cursor;
    } while (c);
    expect(newest).toEqual(["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
  });

  it("rolls renditions up into their publication", async () => {
    const { owner, ws, mastodon, bluesky } = await setup();
    const pub = expectData(
      await client(owner.token).POST("/publications", {
        body: {
          workspace_id: ws,
          title: "Launch",
          source_text: "We launched",
          destinations: [{ social_account_id: mastodon }, { social_account_id: bluesky }],
        },
      }),
      201,
    );
    const [rm, rb] = pub.renditions;
    await seedItem(ws, mastodon, {
      externalId: "s1",
      publishedAt: daysAgo(1),
      publicationId: pub.id,
      renditionId: rm.id,
      metrics: { likes: 4, replies: 1, views: 10 },
    });
    await seedItem(ws, bluesky, { externalId: "at://x/1", publishedAt: daysAgo(1), publicationId: pub.id, renditionId: rb.id, metrics: { likes: 6 } });
    const o = expectData(await overview(owner.token, ws));
    expect(o.publication_total).toBe(1);
    expect(o.publications[0]).toMatchObject({
      publication_id: pub.id,
      title: "Launch",
      excerpt: "We launched",
      engagement: 11,
      engagement_measured: 2,
      metrics: { likes: 10, replies: 1, views: 10 },
      measured: { likes: 2, replies: 1, views: 1 },
    });
    expect(o.publications[0].renditions.map((r) => r.rendition_id).sort()).toEqual([rm.id, rb.id].sort());
  });

  it("validates its query exactly and never shows another workspace", async () => {
    const { owner, outsider, ws } = await setup();
    const other = await setup();
    // Values outside the declared enums, which the typed client forbids: sent raw.
    for (const [q, location] of [
      ["&days=14", "query.days"],
      ["&days=abc", "query.days"],
      ["&source=mixed", "query.source"],
      ["&sort=likes", "query.sort"],
    ]) {
      const res = await api<Problem>("GET", `/analytics?workspace_id=${ws}${q}`, { token: owner.token });
      expectRawProblem(res, 422, "validation-error");
      expect(res.body.errors?.map((e) => e.location)).toContain(location);
    }
    const typedCases: [OverviewQuery, string][] = [
      [{ limit: 0 }, "query.limit"],
      [{ limit: 101 }, "query.limit"],
      [{ limit: 1.5 }, "query.limit"],
      [{ account_id: other.mastodon }, "query.account_id"],
      [{ cursor: "!!!" }, "query.cursor"],
    ];
    for (const [query, location] of typedCases) {
      const res = await overview(owner.token, ws, query);
      expect(expectProblem(res, 422, "validation-error").errors?.map((e) => e.location)).toContain(location);
    }
    expectProblem(await overview(outsider.token, ws), 404, "not-found");
    const empty = expectData(await overview(owner.token, ws, { days: 90, limit: 100 }));
    expect(empty).toMatchObject({ content: [], content_total: 0, content_next_cursor: null, publications: [], publication_total: 0 });
    expect(empty.insights[0]).toMatchObject({ status: "unavailable", reason: "missing_measurements", value: null, content: null });
    expect(empty.trends.engagement).toHaveLength(91);
  });
});
