import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dryRunDeploy, FREE_PLAN_GZIP_LIMIT, sizeTable, type BundleResult } from "../local/dry-run-deploy";
import { deployableWorkers } from "../local/workers";

/**
 * Every Worker of wrangler.toml bundles with `wrangler deploy --dry-run` (what `npm run build:dry-run`
 * does) and stays under Cloudflare's 3 MiB gzipped free-plan limit and within Herald's own budget; and wrangler.toml is in step with
 * functions/groups.ts and queues/ (a new group or consumer: `npx tsx local/sync-workers.ts`).
 */
describe("deployable Workers", () => {
  let outRoot: string | undefined;
  afterAll(() => {
    if (outRoot) fs.rmSync(outRoot, { recursive: true, force: true });
  });

  it("wrangler.toml has a Worker for every operation group and every consumer", async () => {
    const { workers, problems } = await deployableWorkers();
    expect(problems).toEqual([]);
    expect(workers.filter((w) => w.kind === "gateway")).toHaveLength(1);
    expect(workers.filter((w) => w.kind === "group").length).toBeGreaterThan(0);
    expect(workers.filter((w) => w.kind === "consumer").map((w) => w.name)).toEqual(expect.arrayContaining(["outbox-relay", "analytics-refresh"]));
  });

  it("every Worker bundles and is under the 3 MiB gzipped limit", { timeout: 240_000 }, async () => {
    const run = await dryRunDeploy({ concurrency: 2 });
    outRoot = run.outRoot;
    console.log(sizeTable(run.results));
    const failed = run.results.filter((r) => !r.ok).map((r: BundleResult) => `${r.name}: ${r.output}`);
    expect(failed).toEqual([]);
    for (const r of run.results) {
      expect(r.gzipBytes, r.name).toBeGreaterThan(0);
      expect(r.gzipBytes, `${r.name} gzipped`).toBeLessThan(FREE_PLAN_GZIP_LIMIT);
      // Issue 13's budget: every Worker at most 400 KiB gzipped, the gateway too (a router, without the groups' code).
      expect(r.gzipBytes / 1024, `${r.name} gzipped KiB`).toBeLessThanOrEqual(400);
    }
    // The gateway forwards to the group Workers: no module of a group's folder is bundled into it.
    const gateway = run.results.find((r) => r.kind === "gateway")!;
    const map = JSON.parse(fs.readFileSync(path.join(gateway.outDir, "gateway.js.map"), "utf8")) as { sources: string[] };
    expect(map.sources.filter((s) => /functions\/[^/]+\//.test(s))).toEqual([]);
  });
});
