/**
 * GET /analytics over 50,000 content items and 1,000,000 measurements in one workspace (issue 10):
 * p50 / p99 through the gateway in-process (auth, membership, every query, shaping, JSON) beside the very
 * same queries (lib/analytics/overview-load.ts, which the handler runs) executed directly on a warm pool
 * and on a new pool per run (as each Worker request has), for days 7/30/90 and each sort.
 *
 * Run: npx tsx bench/analytics-overview.ts [requests per case, default 30]
 * Starts its own Postgres + relay + SQS (startEphemeralStack) and stops it at the end.
 */
import { personalOrganizationId } from "../lib/billing/organizations";
import "../lib/db/node";
import { sql } from "drizzle-orm";
import { socialAccounts, workspaceMembers, workspaces } from "../db/schema";
import gateway from "../functions/all-groups";
import { loadOverview } from "../lib/analytics/overview-load";
import type { SortKey } from "../lib/analytics/overview-queries";
import { refreshRollups } from "../lib/analytics/store";
import { issueToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { openDb, type Queryable } from "../lib/db/client";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { startEphemeralStack } from "../local/services/ephemeral-stack";
import { fmt, measure, printTable, progress } from "./stats";

const N = Number(process.argv[2] ?? 30);
const ITEMS = 50_000;
const MEASUREMENTS = 1_000_000;
const ACCOUNTS = 10;
/** Per item: five metrics at four collection times = 20 measurements, so 50,000 items make 1,000,000. */
const METRICS = ["likes", "reposts", "replies", "views", "impressions"];
const SNAPSHOTS = MEASUREMENTS / ITEMS / METRICS.length;
const BATCH = 2_500;

async function seed(db: Queryable, ws: string, accountIds: string[]) {
  const accounts = sql.raw(`array[${accountIds.map((a) => `'${a}'`).join(",")}]`);
  // Items published over the last 180 days, so 7/30/90 days select about 4 %, 17 % and 50 % of them.
  for (let done = 0; done < ITEMS; done += BATCH) {
    await db.execute(sql`
      insert into analytics_content_items (id, workspace_id, account_id, source, external_id, published_at, title, excerpt, external_url, last_synced_at)
      select 'aci_bench_' || g, ${ws}, (${accounts})[1 + g % ${ACCOUNTS}::int], case when g % 5 = 0 then 'external' else 'native' end, 'post-' || g,
        now() - (hashint4(g)::float8 / 2147483647 + 1) / 2 * interval '180 days', 'Post ' || g, 'Excerpt of post ' || g, 'https://example.test/' || g, now()
      from generate_series(${done}::int, ${Math.min(ITEMS, done + BATCH) - 1}::int) g`);
    progress("items        ", Math.min(ITEMS, done + BATCH), ITEMS);
  }
  // Measurements: per item, each metric at SNAPSHOTS times, values growing over time.
  const perBatch = BATCH;
  let written = 0;
  for (let done = 0; done < ITEMS; done += perBatch) {
    await db.execute(sql`
      insert into analytics_measurements (id, workspace_id, account_id, content_item_id, metric, value, collected_at, source)
      select 'ams_bench_' || g || '_' || m.ord || '_' || s, ${ws}, (${accounts})[1 + g % ${ACCOUNTS}::int], 'aci_bench_' || g, m.metric,
        (abs(hashint4((g * 31 + m.ord)::int)) % (case when m.metric in ('views', 'impressions') then 5000 else 200 end)) * s / ${SNAPSHOTS}::int,
        now() - (${SNAPSHOTS}::int - s) * interval '6 hours', 'mastodon_api'
      from generate_series(${done}::int, ${Math.min(ITEMS, done + perBatch) - 1}::int) g
      cross join unnest(array[${sql.raw(METRICS.map((m) => `'${m}'`).join(","))}]) with ordinality as m(metric, ord)
      cross join generate_series(1, ${SNAPSHOTS}::int) s`);
    written = Math.min(ITEMS, done + perBatch) * METRICS.length * SNAPSHOTS;
    progress("measurements ", written, MEASUREMENTS);
  }
  // Followers: one count per account every 6 hours over 180 days.
  await db.execute(sql`
    insert into analytics_measurements (id, workspace_id, account_id, metric, value, collected_at, source)
    select 'ams_bench_f_' || a.ord || '_' || h, ${ws}, a.id, 'followers', 1000 + a.ord * 100 + h / 4, now() - (720 - h) * interval '6 hours', 'mastodon_api'
    from unnest(${accounts}) with ordinality as a(id, ord) cross join generate_series(0, 719) h`);
  const ids = Array.from({ length: ITEMS }, (_, g) => `aci_bench_${g}`);
  for (let i = 0; i < ids.length; i += 5000) {
    await refreshRollups(db, ids.slice(i, i + 5000));
    progress("roll-ups     ", Math.min(ids.length, i + 5000), ids.length);
  }
}

async function main() {
  const t0 = Date.now();
  console.error("Starting Postgres, relay and SQS …");
  const stack = await startEphemeralStack("herald-bench-analytics");
  const env = stack.env as unknown as Env;
  const handle = openDb(env);
  const db = handle.db;
  try {
    const user = await createUser(db, { email: "bench@example.test", displayName: "Bench", isAdmin: false });
    const { token } = await issueToken(db, user.id, "bench");
    const ws = newId("wsp");
    await db.insert(workspaces).values({ id: ws, name: "Bench", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
    await db.insert(workspaceMembers).values({ workspaceId: ws, userId: user.id, role: "viewer" });
    const accountIds = Array.from({ length: ACCOUNTS }, () => newId("acc"));
    await db.insert(socialAccounts).values(
      accountIds.map((id, i) => ({
        id,
        workspaceId: ws,
        platform: i % 2 ? ("bluesky" as const) : ("mastodon" as const),
        username: `bench${i}`,
        createdBy: user.id,
      })),
    );
    const seeded = Date.now();
    await seed(db, ws, accountIds);
    await db.execute(sql`vacuum analyze analytics_content_items`);
    await db.execute(sql`vacuum analyze analytics_measurements`);
    const counts = (
      await db.execute(
        sql`select (select count(*) from analytics_content_items)::int as items, (select count(*) from analytics_measurements)::int as measurements`,
      )
    ).rows[0];
    console.error(`Seeded ${counts.items} items and ${counts.measurements} measurements in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);

    const rows: Record<string, string | number>[] = [];
    for (const days of [7, 30, 90]) {
      for (const sort of ["engagement", "views", "newest"] as SortKey[]) {
        const path = `/analytics?workspace_id=${ws}&days=${days}&sort=${sort}`;
        const viaApi = async () => {
          const res = await gateway.request(path, { headers: { authorization: `Bearer ${token}` } }, env);
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
          return (await res.json()) as { content_total: number; content: unknown[] };
        };
        const direct = (q: Queryable) =>
          loadOverview(q, { workspaceId: ws, accountId: null, source: "all", days, now: new Date() }, { sort, after: null, limit: 50 });
        const newPoolRun = async () => {
          const h = openDb(env);
          try {
            return await direct(h.db);
          } finally {
            await h.close();
          }
        };
        const apiResult = await viaApi();
        const sqlResult = await direct(db);
        if (apiResult.content_total !== sqlResult.totals.current.published) throw new Error(`days=${days}: API and SQL disagree`);
        const apiT = await measure(viaApi, { n: N, warmup: 3 });
        const sqlT = await measure(() => direct(db), { n: N, warmup: 3 });
        const coldT = await measure(newPoolRun, { n: N, warmup: 3 });
        rows.push({
          days,
          sort,
          items: apiResult.content_total,
          "api p50": fmt(apiT.p50),
          "api p99": fmt(apiT.p99),
          "sql p50": fmt(sqlT.p50),
          "sql p99": fmt(sqlT.p99),
          "sql+connect p50": fmt(coldT.p50),
          "sql+connect p99": fmt(coldT.p99),
          "api/(sql+connect) p50": `${(apiT.p50 / coldT.p50).toFixed(2)}×`,
          "api/(sql+connect) p99": `${(apiT.p99 / coldT.p99).toFixed(2)}×`,
          "api/sql p50": `${(apiT.p50 / sqlT.p50).toFixed(2)}×`,
        });
        console.error(`  days=${days} sort=${sort}: done`);
      }
    }
    console.log(
      `\nGET /analytics over ${ITEMS.toLocaleString("en")} items and ${MEASUREMENTS.toLocaleString("en")} measurements, ${N} requests per case, one at a time.`,
    );
    console.log("api = gateway in-process (token, membership, every query, shaping, JSON) on a new pool per request as on Workers;");
    console.log("sql = the same queries (lib/analytics/overview-load.ts) on a warm pool; sql+connect = the same on a new pool each run.\n");
    printTable(rows);
    console.log(`\nWhole run ${((Date.now() - t0) / 1000).toFixed(0)} s.`);
  } finally {
    await handle.close();
    await stack.stop();
  }
}

await main();
