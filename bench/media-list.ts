/**
 * GET /media over 100,000 items in one workspace (issue 4): p50 / p99 of a few filter combinations
 * through the gateway in-process (auth, membership check, the page and the exact total, JSON), beside
 * the very same SQL (the page and count queries the handler builds) run directly through the same Neon
 * driver and relay: once on a warm pool, and once on a new pool per run as each request has.
 *
 * Run: npx tsx bench/media-list.ts [requests per case, default 100]
 * Starts its own Postgres + relay + SQS (startEphemeralStack) and stops it at the end.
 */
import { personalOrganizationId } from "../lib/billing/organizations";
import "../lib/db/node";
import { workspaceMembers, workspaces } from "../db/schema";
import gateway from "../functions/all-groups";
import { issueToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { startEphemeralStack } from "../local/services/ephemeral-stack";
import { MEDIA_CASES, mediaStatements, seedMediaLibrary } from "./seed-media";
import { fmt, measure, printTable } from "./stats";

const N = Number(process.argv[2] ?? 100);
const ITEMS = 100_000;
/** Other tenants' items, so the indexes hold more than the one workspace measured. */
const OTHER_WORKSPACES = 4;
const OTHER_ITEMS = 5_000;

/** Index names in a plan (EXPLAIN JSON), to show which index serves each case. */
function indexesIn(plan: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(plan)) plan.forEach((p) => indexesIn(p, out));
  else if (plan && typeof plan === "object") {
    for (const [key, value] of Object.entries(plan)) {
      if (key === "Index Name") out.add(String(value));
      else indexesIn(value, out);
    }
  }
  return out;
}

async function main() {
  const t0 = Date.now();
  console.error("Starting Postgres, relay and SQS …");
  const stack = await startEphemeralStack("herald-bench-media");
  const env = { ...stack.env, RATE_LIMIT_PER_MINUTE: "100000000" } as unknown as Env; // measure the API, not the per-token rate limit
  const handle = openDb(env);
  const db = handle.db;
  try {
    const user = await createUser(db, { email: "bench@example.test", displayName: "Bench", isAdmin: false });
    const { token } = await issueToken(db, user.id, "bench");
    const ws = newId("wsp");
    await db.insert(workspaces).values({ id: ws, name: "Bench", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
    await db.insert(workspaceMembers).values({ workspaceId: ws, userId: user.id, role: "viewer" });

    const seeded = Date.now();
    const used = await seedMediaLibrary(handle, user.id, ws, { items: ITEMS, otherWorkspaces: OTHER_WORKSPACES, otherItems: OTHER_ITEMS });
    console.error(
      `Seeded ${ITEMS.toLocaleString("en")} items (${used.toLocaleString("en")} uses) + ${(OTHER_WORKSPACES * OTHER_ITEMS).toLocaleString("en")} in other workspaces in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
    );

    const rows: Record<string, string | number>[] = [];
    for (const c of MEDIA_CASES) {
      const path = `/media?workspace_id=${ws}${c.query ? `&${c.query}` : ""}`;
      const viaApi = async () => {
        const res = await gateway.request(path, { headers: { authorization: `Bearer ${token}` } }, env);
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as { total: number; media: unknown[] };
      };
      const { page, count } = mediaStatements(db, ws, c.query);
      const runSql = (pool: typeof handle.pool) => Promise.all([pool.query(page.sql, page.params), pool.query(count.sql, count.params)]);
      const newPoolRun = async () => {
        const h = openDb(env);
        try {
          return await runSql(h.pool);
        } finally {
          await h.close();
        }
      };

      const apiResult = await viaApi();
      const [pageRows, countRows] = await runSql(handle.pool);
      const sqlTotal = Number(Object.values(countRows.rows[0])[0]);
      if (apiResult.total !== sqlTotal || apiResult.media.length !== pageRows.rows.length) {
        throw new Error(`${c.name}: API and SQL disagree (${apiResult.total} vs ${sqlTotal})`);
      }
      const plans = await Promise.all([page, count].map((s) => handle.pool.query(`explain (format json) ${s.sql}`, s.params)));
      const indexes = [...indexesIn(plans.map((p) => p.rows[0]["QUERY PLAN"]))].map((n) => n.replace(/^media_(list_)?/, "").replace(/_idx$/, "")).join(", ");

      const apiT = await measure(viaApi, { n: N, warmup: 5 });
      const sqlT = await measure(() => runSql(handle.pool), { n: N, warmup: 5 });
      const coldT = await measure(newPoolRun, { n: Math.max(20, Math.floor(N / 2)), warmup: 3 });
      rows.push({
        case: c.name,
        total: apiResult.total,
        "api p50": fmt(apiT.p50),
        "api p99": fmt(apiT.p99),
        "sql p50": fmt(sqlT.p50),
        "sql p99": fmt(sqlT.p99),
        "sql+connect p50": fmt(coldT.p50),
        "api/sql p50": `${(apiT.p50 / sqlT.p50).toFixed(2)}×`,
        "api/sql p99": `${(apiT.p99 / sqlT.p99).toFixed(2)}×`,
        "api/(sql+connect) p50": `${(apiT.p50 / coldT.p50).toFixed(2)}×`,
        indexes,
      });
      console.error(`  ${c.name}: done`);
    }
    console.log(`\nGET /media over ${ITEMS.toLocaleString("en")} items in one workspace, ${N} requests per case, one at a time.`);
    console.log("api = gateway in-process (token lookup, membership check, page + exact total in parallel, JSON), new pool per request as on Workers;");
    console.log("sql = the same two statements on a warm pool; sql+connect = the same on a new pool each run. indexes = from EXPLAIN of both statements.\n");
    printTable(rows);
    console.log(`\nWhole run ${((Date.now() - t0) / 1000).toFixed(0)} s.`);
  } finally {
    await handle.close();
    await stack.stop();
  }
}

await main();
