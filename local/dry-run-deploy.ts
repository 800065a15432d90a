/**
 * `npm run build:dry-run`: bundle every Worker exactly as `wrangler deploy` would, without uploading:
 * the gateway (the router), one Worker per operation group and one per queue consumer (wrangler.toml). Fails if any
 * does not bundle, or if wrangler.toml is out of step with functions/groups.ts and queues/, and prints
 * each bundle's size and gzipped size (what Cloudflare's 3 MiB free-plan limit applies to).
 *
 *   npx tsx local/dry-run-deploy.ts [--outdir DIR (default dist/dry-run)] [--concurrency N (default: cores)] [--markdown]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { REPO_ROOT, WRANGLER_CONFIG, bundleWithWrangler } from "./services/wrangler";
import { writeDocsAssets } from "./docs-assets";
import { deployableWorkers, type DeployableWorker } from "./workers";

/** Cloudflare's limit on a Worker's compressed size on the free plan. */
export const FREE_PLAN_GZIP_LIMIT = 3 * 1024 * 1024;

export interface BundleResult extends DeployableWorker {
  ok: boolean;
  /** Bytes of the bundled modules (source maps excluded), and of the same gzipped, as wrangler counts them. */
  bytes: number;
  gzipBytes: number;
  seconds: number;
  outDir: string;
  /** wrangler's output when the bundle failed. */
  output?: string;
}

/** Run `wrangler deploy --dry-run --outdir <dir>/<name>` for one Worker. */
export async function bundleWorker(worker: DeployableWorker, outRoot: string): Promise<BundleResult> {
  const outDir = path.join(outRoot, worker.name);
  const started = Date.now();
  const { code, output } = await bundleWithWrangler({ config: WRANGLER_CONFIG, env: worker.env, outDir, stateDir: path.join(outRoot, ".wrangler-config") });
  const seconds = (Date.now() - started) / 1000;
  const modules = fs.existsSync(outDir)
    ? fs
        .readdirSync(outDir, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile() && !f.name.endsWith(".map") && f.name !== "README.md")
        .map((f) => fs.readFileSync(path.join(f.parentPath ?? (f as unknown as { path: string }).path, f.name)))
    : [];
  const all = Buffer.concat(modules);
  const ok = code === 0 && modules.length > 0;
  return { ...worker, ok, bytes: all.length, gzipBytes: ok ? zlib.gzipSync(all).length : 0, seconds, outDir, ...(ok ? {} : { output }) };
}

/** Bundle every Worker, `concurrency` at a time. */
export async function dryRunDeploy(
  opts: { outRoot?: string; concurrency?: number } = {},
): Promise<{ results: BundleResult[]; problems: string[]; outRoot: string }> {
  const outRoot = opts.outRoot ?? fs.mkdtempSync(path.join(os.tmpdir(), "herald-dry-run-"));
  fs.mkdirSync(outRoot, { recursive: true });
  // wrangler.toml's `assets` folder (inherited by every environment) must exist to bundle any Worker.
  writeDocsAssets();
  const { workers: all, problems } = await deployableWorkers();
  // A Worker without its wrangler.toml section is one of the problems; bundle the others.
  const workers = all.filter((w) => w.configured);
  const results: BundleResult[] = new Array(workers.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? os.availableParallelism(), workers.length)) }, async () => {
    while (next < workers.length) {
      const i = next++;
      results[i] = await bundleWorker(workers[i], outRoot);
    }
  });
  await Promise.all(lanes);
  return { results, problems, outRoot };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The size table, plain or as Markdown. */
export function sizeTable(results: BundleResult[], markdown = false): string {
  const rows = results.map((r) => [
    r.env ? `${r.name}` : "gateway (router)",
    r.kind,
    r.main,
    r.ok ? kib(r.bytes) : "FAILED",
    r.ok ? kib(r.gzipBytes) : "",
    r.ok ? `${((r.gzipBytes / FREE_PLAN_GZIP_LIMIT) * 100).toFixed(1)} %` : "",
  ]);
  const head = ["worker", "kind", "entry", "size", "gzip", "of 3 MiB"];
  if (markdown) {
    return [`| ${head.join(" | ")} |`, `|${head.map((_, i) => (i >= 3 ? "---:" : "---")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const started = Date.now();
  const { results, problems, outRoot } = await dryRunDeploy({
    // dist/ is ignored by git; each Worker's bundle lands in <outdir>/<name>.
    outRoot: path.resolve(arg("--outdir") ?? path.join(REPO_ROOT, "dist/dry-run")),
    concurrency: arg("--concurrency") ? Number(arg("--concurrency")) : undefined,
  });
  for (const r of results.filter((r) => !r.ok)) {
    console.error(`\n✘ ${r.name} (${r.main}) did not bundle:\n${r.output?.trim()}\n`);
  }
  console.log(sizeTable(results, args.includes("--markdown")));
  const failed = results.filter((r) => !r.ok);
  const tooBig = results.filter((r) => r.ok && r.gzipBytes > FREE_PLAN_GZIP_LIMIT);
  console.log(
    `\n${results.length} Workers, ${failed.length} failed, ${tooBig.length} over the 3 MiB gzip limit, in ${((Date.now() - started) / 1000).toFixed(1)} s; bundles in ${path.relative(REPO_ROOT, outRoot).startsWith("..") ? outRoot : path.relative(REPO_ROOT, outRoot)}`,
  );
  for (const p of problems) console.error(`✘ ${p}`);
  for (const r of tooBig) console.error(`✘ ${r.name}: ${kib(r.gzipBytes)} gzipped is over Cloudflare's 3 MiB free-plan limit`);
  process.exitCode = failed.length || tooBig.length || problems.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(REPO_ROOT, "local/dry-run-deploy.ts")) await main();
