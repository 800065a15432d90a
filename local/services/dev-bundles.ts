import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bundleWithWrangler } from "./wrangler";

/**
 * `wrangler dev` rebuilds its Workers whenever a file it bundled changes (its esbuild watch is always on, and
 * `wrangler dev` has no option to turn it off) and restarts workerd with the new bundle. The restart cuts every
 * request in flight: wrangler's proxy answers each one that is not a GET or HEAD with `503 Your worker restarted
 * mid-request`, and the client cannot tell whether its change was made. Seen: a source edit in the checkout (another
 * person's work in the same tree, `npm ci`, a `git pull`) while `npm start` served answered an in-flight
 * `POST /publication-builds/%252F/commit` and `PUT /image-editor/designs/{id}` with that 503.
 *
 * So `npm start` serves bundles made once at start, as `wrangler deploy --dry-run` makes them, from DATA_DIR,
 * with `no_bundle = true`: wrangler then watches only the bundle's own folder, which nothing writes to until the
 * next start. An edit takes effect at the next start, as it does for a deployment.
 *
 * Each config (written by group-configs.ts) is bundled into `<outRoot>/<config name>/` and rewritten in place to
 * run that bundle. `concurrency`: bundles made at once (default: the machine's cores).
 */
export async function serveFromBundles(configs: string[], opts: { outRoot: string; stateDir: string; concurrency?: number }): Promise<void> {
  fs.rmSync(opts.outRoot, { recursive: true, force: true });
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? os.availableParallelism(), configs.length)) }, async () => {
    while (next < configs.length) await bundleOne(configs[next++], opts);
  });
  await Promise.all(lanes);
}

async function bundleOne(config: string, opts: { outRoot: string; stateDir: string }): Promise<void> {
  const outDir = path.join(opts.outRoot, path.basename(config, ".toml"));
  // The configs are environments of their own already (group-configs.ts): the top level, no --env.
  const { code, output } = await bundleWithWrangler({ config, env: "", outDir, stateDir: opts.stateDir });
  const entries = fs.existsSync(outDir) ? fs.readdirSync(outDir).filter((f) => f.endsWith(".js")) : [];
  if (code !== 0 || entries.length !== 1) {
    throw new Error(`could not bundle ${path.basename(config)} (wrangler exited ${code}, ${entries.length} entry modules):\n${output.trim()}`);
  }
  fs.writeFileSync(config, runBundle(fs.readFileSync(config, "utf8"), path.join(outDir, entries[0])));
}

/** A config's text with `main` leading to `bundle` and wrangler told not to bundle (nor watch the sources) again. */
export function runBundle(toml: string, bundle: string): string {
  const lines = toml.split("\n");
  const main = lines.findIndex((l) => /^main = /.test(l));
  const firstSection = lines.findIndex((l) => l.startsWith("["));
  if (main < 0 || (firstSection >= 0 && main > firstSection)) throw new Error("the config has no top-level main");
  lines.splice(main, 1, `main = ${JSON.stringify(bundle)}`, "no_bundle = true");
  return lines.join("\n");
}
