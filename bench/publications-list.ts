// GET /publications over a workspace of 100,000 publications: the API in-process (as a Worker would
// run it: a fresh connection per request) beside the same SQL run directly through the same driver.
// Run: npx tsx bench/publications-list.ts [count]
import "../lib/db/node";
import { sql } from "drizzle-orm";
import gateway from "../functions/all-groups";
import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { startEphemeralStack } from "../local/services/ephemeral-stack";
import { fmt, measure, printTable, progress } from "./stats";
import { PUBLICATION_CASES, publicationsPage, seedPublications } from "./seed-publications";

const COUNT = Number(process.argv[2] ?? 100_000);
const stack = await startEphemeralStack("herald-bench");
const env = { ...stack.env, RATE_LIMIT_PER_MINUTE: "100000000" } as unknown as Env; // measure the API, not the per-token rate limit
try {
  const { token, workspaceId } = await seedPublications(env, COUNT, (done) => progress("seeding publications", done, COUNT));
  const rows: Record<string, string | number>[] = [];
  for (const s of PUBLICATION_CASES) {
    const qs = new URLSearchParams({ workspace_id: workspaceId, ...(s.query as Record<string, string>) }).toString();
    let apiCount = 0;
    const viaApi = await measure(
      async () => {
        const res = await gateway.request(`/publications?${qs}`, { headers: { authorization: `Bearer ${token}` } }, env);
        if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
        apiCount = ((await res.json()) as unknown[]).length;
      },
      { n: 200, warmup: 10 },
    );
    // The same SQL the operation runs for its page, through the same driver, also on a new connection each time as a Worker must.
    const direct = (handle: ReturnType<typeof openDb>) => publicationsPage(handle.db, workspaceId, s.query);
    let directCount = 0;
    const directFresh = await measure(
      async () => {
        const handle = openDb(env);
        directCount = (await direct(handle)).length;
        await handle.close();
      },
      { n: 200, warmup: 10 },
    );
    const warm = openDb(env);
    const directWarm = await measure(() => direct(warm), { n: 200, warmup: 10 });
    await warm.close();
    if (apiCount !== directCount) throw new Error(`${s.name}: API returned ${apiCount}, SQL ${directCount}`);
    rows.push({
      scenario: s.name,
      items: apiCount,
      "API p50": fmt(viaApi.p50),
      "API p99": fmt(viaApi.p99),
      "API req/s": viaApi.perSecond.toFixed(0),
      "SQL p50 (fresh conn)": fmt(directFresh.p50),
      "SQL p99 (fresh conn)": fmt(directFresh.p99),
      "SQL p50 (warm pool)": fmt(directWarm.p50),
      "p50 ratio API/SQL": (viaApi.p50 / directFresh.p50).toFixed(2),
    });
  }
  console.log(`\nGET /publications over ${COUNT.toLocaleString()} publications (1 rendition each), 200 sequential requests per row`);
  printTable(rows);
  const [{ count }] = (await openDb(env).db.execute(sql`select count(*)::int as count from publications`)).rows as { count: number }[];
  console.log(`publications in the workspace: ${count}`);
} finally {
  await stack.stop();
}
process.exit(0);
