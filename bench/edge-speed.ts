/**
 * Issue 13's table, every figure measured in one run and printed beside its goal:
 *  1. GET /auth/me req/s ÷ the same route without a token (401, no database), 16 concurrent clients;
 *  2. list p50 (publications and media, every filter) ÷ GET /auth/me p50, one client;
 *  3. list p50 ÷ the same SQL on a warm connection, one client;
 *  4. publish pipeline renditions/s ÷ raw SQS send+receive+delete msgs/s (bench/publish-throughput.ts);
 *  5. the largest Worker bundle, gzipped (wrangler deploy --dry-run).
 * 1–3 go through `npm start` (wrangler dev: the real Workers runtime, the SQL-over-HTTP endpoint and the
 * WebSocket relay in front of embedded Postgres), over HTTP with keep-alive, as a client would. Beside the
 * goals, not part of them: the runtime's floor (a 401 that touches no database), each list above it ÷ its
 * SQL, the same SQL sent from Node through the SQL-over-HTTP endpoint, and the least each list could cost in
 * this runtime (GET /auth/me with its one statement swapped for the list's, nothing else added), to show
 * where the time goes and which goals this runtime leaves room for.
 *
 * Run: npx tsx bench/edge-speed.ts [publications, default 20,000] [media, default 20,000]
 */
import "../lib/db/node";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { findUserByToken, hashToken } from "../lib/auth/tokens";
import { openDb } from "../lib/db/client";
import { dryRunDeploy } from "../local/dry-run-deploy";
import { startHerald } from "../local/services/herald-process";
import { REPO_ROOT } from "../local/services/wrangler";
import { MEDIA_CASES, mediaStatements, seedMediaLibrary } from "./seed-media";
import { PUBLICATION_CASES, publicationsPage, seedPublications } from "./seed-publications";
import { fmt, measure, printTable, progress } from "./stats";

const PUBLICATIONS = Number(process.argv[2] ?? 20_000);
const MEDIA = Number(process.argv[3] ?? 20_000);
const CLIENTS = 16;
const N = 100;

const t0 = Date.now();
console.error("Starting npm start …");
const herald = await startHerald({ RATE_LIMIT_PER_MINUTE: "100000000" }); // measure the API, not the per-token rate limit
const summary: { figure: string; measured: string; goal: string; holds: string }[] = [];
const row = (figure: string, value: number, goal: string, holds: boolean, unit = "") =>
  summary.push({ figure, measured: `${value.toFixed(2)}${unit}`, goal, holds: holds ? "yes" : "NO" });
try {
  const password = fs.readFileSync(path.join(herald.dataDir, "postgres-password"), "utf8").trim();
  const dbEnv = {
    DATABASE_URL: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${herald.ports.PG_PORT}/herald`,
    NEON_WS_PROXY: `127.0.0.1:${herald.ports.WS_RELAY_PORT}/v2`,
  };
  const { token, workspaceId, userId } = await seedPublications(dbEnv, PUBLICATIONS, (done) => progress("publications    ", done, PUBLICATIONS));
  const warm = openDb(dbEnv);
  // The same statements sent from Node through the local SQL-over-HTTP endpoint the Workers use (not a goal).
  const overHttp = openDb({ ...dbEnv, NEON_FETCH_ENDPOINT: `http://127.0.0.1:${herald.ports.SQL_HTTP_PORT}/sql` });
  await seedMediaLibrary(warm, userId, workspaceId, { items: MEDIA, otherWorkspaces: 2, otherItems: 2_000 });

  const get = async (pathAndQuery: string, withToken = true, expect = 200) => {
    const res = await fetch(`${herald.url}${pathAndQuery}`, { headers: withToken ? { authorization: `Bearer ${token}` } : {} });
    const body = await res.text();
    if (res.status !== expect) throw new Error(`${pathAndQuery}: ${res.status} ${body}`);
    return body;
  };

  // 1. The database path against the runtime's own capacity, 16 clients each.
  const meLoaded = await measure(() => get("/auth/me"), { n: 1600, warmup: 20, concurrency: CLIENTS });
  const anonLoaded = await measure(() => get("/auth/me", false, 401), { n: 1600, warmup: 20, concurrency: CLIENTS });
  console.log(
    `\nGET /auth/me, ${CLIENTS} clients: ${meLoaded.perSecond.toFixed(0)} req/s (p50 ${fmt(meLoaded.p50)}); without a token: ${anonLoaded.perSecond.toFixed(0)} req/s (p50 ${fmt(anonLoaded.p50)})`,
  );
  row(
    "GET /auth/me req/s ÷ the same without a token, 16 clients",
    meLoaded.perSecond / anonLoaded.perSecond,
    "≥ 0.3",
    meLoaded.perSecond / anonLoaded.perSecond >= 0.3,
  );

  // 2 and 3. Every list filter, one client: through the API, and the same SQL on a warm connection.
  const me = await measure(() => get("/auth/me"), { n: N * 2, warmup: 10 });
  // The runtime's own floor under wrangler dev: a request answered 401 before any database work.
  const floor = await measure(() => get("/auth/me", false, 401), { n: N * 2, warmup: 10 });
  // GET /auth/me's own statement on the warm connection: what its path costs without it is me − this.
  const tokenHash = await hashToken(token);
  const meSql = await measure(() => findUserByToken(warm.pool, tokenHash), { n: N * 2, warmup: 10 });
  const bounds: { name: string; toSql: number; toMe: number }[] = [];
  const lists: Record<string, string | number>[] = [];
  const ratios = { toMe: [] as number[], toSql: [] as number[] };
  const cases = [
    ...PUBLICATION_CASES.map((c) => ({
      name: `publications: ${c.name}`,
      path: `/publications?${new URLSearchParams({ workspace_id: workspaceId, ...(c.query as Record<string, string>) })}`,
      sql: (h = warm) => publicationsPage(h.db, workspaceId, c.query),
    })),
    ...MEDIA_CASES.map((c) => {
      const { page, count } = mediaStatements(warm.db, workspaceId, c.query);
      return {
        name: `media: ${c.name}`,
        path: `/media?workspace_id=${workspaceId}${c.query ? `&${c.query}` : ""}`,
        sql: (h = warm) => Promise.all([h.pool.query(page.sql, page.params), h.pool.query(count.sql, count.params)]),
      };
    }),
  ];
  for (const c of cases) {
    const api = await measure(() => get(c.path), { n: N, warmup: 5 });
    const direct = await measure(() => c.sql(), { n: N, warmup: 5 });
    const viaEndpoint = await measure(() => c.sql(overHttp), { n: N, warmup: 5 });
    ratios.toMe.push(api.p50 / me.p50);
    ratios.toSql.push(api.p50 / direct.p50);
    // The least this list could cost here: /auth/me's whole path (request, runtime, one fetch, response)
    // with its statement swapped for the list's statements, and nothing else added.
    const least = me.p50 - meSql.p50 + direct.p50;
    bounds.push({ name: c.name, toSql: least / direct.p50, toMe: least / me.p50 });
    lists.push({
      list: c.name,
      "api p50": fmt(api.p50),
      "api p99": fmt(api.p99),
      "sql p50 (warm)": fmt(direct.p50),
      "÷ /auth/me p50": (api.p50 / me.p50).toFixed(2),
      "÷ sql p50": (api.p50 / direct.p50).toFixed(2),
      // Not a goal: what the request costs above the floor, beside the SQL, to show where the rest goes.
      "(api − floor) ÷ sql": ((api.p50 - floor.p50) / direct.p50).toFixed(2),
      "sql p50 over HTTP": fmt(viaEndpoint.p50),
      "least ÷ sql": (least / direct.p50).toFixed(2),
      "least ÷ /auth/me": (least / me.p50).toFixed(2),
    });
  }
  await warm.close();
  await overHttp.close();
  console.log(
    `\nLists over ${PUBLICATIONS.toLocaleString("en")} publications and ${MEDIA.toLocaleString("en")} media, one client, ${N} requests each; GET /auth/me p50 ${fmt(me.p50)}; floor (the same without a token, 401, no database) p50 ${fmt(floor.p50)}; its statement on the warm connection p50 ${fmt(meSql.p50)}`,
  );
  printTable(lists);
  console.log("least = /auth/me p50 − its statement's warm p50 + the list's warm SQL p50: the list as cheap as /auth/me but for its SQL.");
  const outOfReach = bounds.filter((b) => b.toSql > 2);
  console.log(
    outOfReach.length
      ? `At that least, list ÷ SQL is above 2 for ${outOfReach.length} of ${bounds.length} lists (${outOfReach.map((b) => `${b.name} ${b.toSql.toFixed(2)}`).join(", ")}): there the ≤ 2 goal cannot hold in this runtime.`
      : "At that least, every list ÷ SQL is at most 2: the runtime leaves room for the ≤ 2 goal.",
  );
  const worstToMe = bounds.reduce((a, b) => (b.toMe > a.toMe ? b : a));
  console.log(
    `At that least, list ÷ /auth/me is at most ${worstToMe.toMe.toFixed(2)} (${worstToMe.name}): the ≤ 3 goal ${worstToMe.toMe <= 3 ? "is within reach" : "cannot hold"} in this runtime.`,
  );
  const worst = (xs: number[]) => Math.max(...xs);
  row("list p50 ÷ GET /auth/me p50 (worst filter)", worst(ratios.toMe), "≤ 3", worst(ratios.toMe) <= 3);
  row("list p50 ÷ the same SQL on a warm connection (worst filter)", worst(ratios.toSql), "≤ 2", worst(ratios.toSql) <= 2);
} finally {
  await herald.stop();
}

// 4. The publish pipeline beside raw SQS, in its own run of the same machine (nothing else running).
console.error("Publish pipeline (bench/publish-throughput.ts) …");
const { stdout } = await promisify(execFile)("npx", ["tsx", "bench/publish-throughput.ts", "1000"], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
const pipeline = Number(/ratio end-to-end \/ raw SQS\D*?([\d.]+)/.exec(stdout)?.[1]);
console.log(`\n${stdout.trim()}`);
row("publish pipeline renditions/s ÷ raw SQS msgs/s", pipeline, "≥ 0.5", pipeline >= 0.5);

// 5. Bundles, as wrangler deploy would upload them.
console.error("Bundling every Worker …");
const { results, outRoot } = await dryRunDeploy();
fs.rmSync(outRoot, { recursive: true, force: true });
const largest = results.reduce((a, b) => (b.gzipBytes > a.gzipBytes ? b : a));
const overGoal = results.filter((r) => r.gzipBytes > 400 * 1024).map((r) => `${r.name} ${(r.gzipBytes / 1024).toFixed(0)}`);
console.log(`\nWorkers over 400 KiB gzipped: ${overGoal.join(", ") || "none"}`);
row(`largest Worker bundle, gzipped (${largest.name})`, largest.gzipBytes / 1024, "≤ 400 KiB each", overGoal.length === 0, " KiB");

console.log(`\nIssue 13's figures, measured in this run (${((Date.now() - t0) / 1000).toFixed(0)} s):`);
printTable(summary);
process.exit(0);
