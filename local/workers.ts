import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { routeTableProblems } from "./route-table";
import { REPO_ROOT, WRANGLER_CONFIG } from "./services/wrangler";
import { withWorkerSections } from "./wrangler-sections";

/** One deployable Worker of wrangler.toml: the gateway (top level) or an [env.<name>]. */
export interface DeployableWorker {
  /** "gateway", an operation group's name or a consumer's name. */
  name: string;
  /** The wrangler environment (`--env`), "" for the top level. */
  env: string;
  main: string;
  kind: "gateway" | "group" | "consumer";
  /** Whether wrangler.toml has its environment (else it cannot be bundled yet: see the problems). */
  configured: boolean;
}

/**
 * The environments of wrangler.toml and their `main`. A deliberately small reader for the file as we
 * write it (section headers and `main = "…"` lines), so no TOML library is needed.
 */
export function readWranglerToml(text = fs.readFileSync(WRANGLER_CONFIG, "utf8")): { name: string; main: string; envs: Map<string, string | undefined> } {
  let section = "";
  let name = "";
  let main = "";
  const envs = new Map<string, string | undefined>();
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      section = header[1];
      const env = /^env\.([A-Za-z0-9_-]+)$/.exec(section);
      if (env && !envs.has(env[1])) envs.set(env[1], undefined);
      continue;
    }
    const named = /^name\s*=\s*"([^"]+)"$/.exec(line);
    if (named && section === "") name = named[1];
    const value = /^main\s*=\s*"([^"]+)"$/.exec(line);
    if (!value) continue;
    if (section === "") main = value[1];
    const env = /^env\.([A-Za-z0-9_-]+)$/.exec(section);
    if (env) envs.set(env[1], value[1]);
  }
  return { name, main, envs };
}

/** Consumer entries: every .ts file directly under queues/ but the local all-in-one entry. */
export function consumerNames(): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, "queues"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.endsWith(".test.ts") && f !== "local.ts")
    .map((f) => f.slice(0, -3))
    .sort();
}

/**
 * Each operation group of functions/groups.ts with the folder that defines it (the folder whose
 * index.ts default-exports the very object GROUPS holds).
 */
export async function groupFolders(): Promise<Map<string, string | undefined>> {
  const { GROUPS } = (await import(pathToFileURL(path.join(REPO_ROOT, "functions/groups.ts")).href)) as { GROUPS: Record<string, unknown> };
  const byApp = new Map<unknown, string>();
  for (const dir of fs.readdirSync(path.join(REPO_ROOT, "functions"), { withFileTypes: true })) {
    const index = path.join(REPO_ROOT, "functions", dir.name, "index.ts");
    if (!dir.isDirectory() || !fs.existsSync(index)) continue;
    const mod = (await import(pathToFileURL(index).href)) as { default?: unknown };
    if (mod.default) byApp.set(mod.default, dir.name);
  }
  return new Map(Object.entries(GROUPS).map(([name, app]) => [name, byApp.get(app)]));
}

export const groupWorkerEntry = (folder: string) => `functions/${folder}/worker.ts`;

/**
 * Every Worker to deploy, and what is out of step between functions/groups.ts, queues/, the entry
 * files, queues/local.ts, the gateway's route table and wrangler.toml (each problem says how to fix it).
 */
export async function deployableWorkers(): Promise<{ workers: DeployableWorker[]; problems: string[] }> {
  const text = fs.readFileSync(WRANGLER_CONFIG, "utf8");
  const toml = readWranglerToml(text);
  const problems: string[] = [];
  const workers: DeployableWorker[] = [{ name: "gateway", env: "", main: toml.main, kind: "gateway", configured: true }];
  if (toml.main !== "functions/gateway.ts") problems.push(`wrangler.toml: the top-level main should be functions/gateway.ts, not ${toml.main || "missing"}`);
  const fix = "run `npx tsx local/sync-workers.ts`";

  const groups = await groupFolders();
  for (const [name, folder] of groups) {
    if (!folder) {
      problems.push(`group "${name}": no functions/<folder>/index.ts default-exports it`);
      continue;
    }
    const entry = groupWorkerEntry(folder);
    if (!fs.existsSync(path.join(REPO_ROOT, entry))) problems.push(`group "${name}": ${entry} is missing (${fix})`);
    if (!toml.envs.has(name)) problems.push(`group "${name}": wrangler.toml has no [env.${name}] (${fix})`);
    else if (toml.envs.get(name) !== entry)
      problems.push(`group "${name}": [env.${name}] main should be "${entry}", not ${JSON.stringify(toml.envs.get(name))}`);
    workers.push({ name, env: name, main: entry, kind: "group", configured: toml.envs.has(name) });
  }

  const { CONSUMERS } = (await import(pathToFileURL(path.join(REPO_ROOT, "queues/local.ts")).href)) as { CONSUMERS: Record<string, unknown> };
  for (const name of consumerNames()) {
    const entry = `queues/${name}.ts`;
    if (!toml.envs.has(name)) problems.push(`consumer "${name}": wrangler.toml has no [env.${name}] (${fix})`);
    else if (toml.envs.get(name) !== entry)
      problems.push(`consumer "${name}": [env.${name}] main should be "${entry}", not ${JSON.stringify(toml.envs.get(name))}`);
    if (!Object.hasOwn(CONSUMERS, name))
      problems.push(
        `consumer "${name}": not in CONSUMERS of queues/local.ts, so \`npm start\` does not run it (add \`"${name}": () => import("./${name}"),\`)`,
      );
    workers.push({ name, env: name, main: entry, kind: "consumer", configured: toml.envs.has(name) });
  }

  problems.push(...(await routeTableProblems({ text, name: toml.name })));
  // Every [env.*] section as local/wrangler-sections.ts says (vars and bindings are not inherited, so each repeats them).
  const entries = workers.filter((w) => w.kind === "group").map((w): [string, string] => [w.name, w.main]);
  if (withWorkerSections(text, entries, consumerNames(), toml.name || "herald") !== text) {
    problems.push(`wrangler.toml: the [env.*] sections are not what local/wrangler-sections.ts says they should be (${fix})`);
  }

  const known = new Set(workers.map((w) => w.env));
  for (const env of toml.envs.keys())
    if (!known.has(env)) problems.push(`wrangler.toml: [env.${env}] is neither a group of functions/groups.ts nor a consumer under queues/`);
  return { workers, problems };
}
