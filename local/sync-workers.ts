/**
 * `npx tsx local/sync-workers.ts`: after adding an operation group to functions/groups.ts or a
 * consumer under queues/, write what makes it deployable on its own: the group's
 * functions/<folder>/worker.ts and an [env.<name>] section in wrangler.toml. Existing files and sections
 * are left alone. After adding or changing any operation, it also rewrites what the gateway routes by:
 * functions/routes.ts and the gateway's GROUP_* service bindings (wrangler.toml's top-level `services`).
 * Then `npm run build:dry-run` checks that everything bundles.
 */
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT, WRANGLER_CONFIG } from "./services/wrangler";
import { GATEWAY_SERVICES, gatewayServicesToml, ROUTE_TABLE_FILE, routeTable, routeTableSource } from "./route-table";
import { consumerNames, deployableWorkers, groupFolders, groupWorkerEntry, readWranglerToml } from "./workers";

const CONSUMERS_MARKER = "# ---- Queue consumers (queues/) ----";

/** Non-secret defaults every Worker gets; vars are not inherited by environments, so each lists them. */
const DEFAULT_VARS = ['ALLOW_PRIVATE_URLS = "false"', 'SQS_REGION = "us-east-1"'];

/** Bindings every group and consumer Worker gets (each lists them: environments do not inherit bindings). */
const BINDINGS = [
  'r2_buckets = [{ binding = "MEDIA_BUCKET", bucket_name = "herald-media" }]',
  // lib/jobs/nudge.ts: the consumers each Worker may nudge after a commit.
  'services = [{ binding = "NUDGE_PUBLISH", service = "herald-publish" }, { binding = "NUDGE_ANALYTICS", service = "herald-analytics-refresh" }, { binding = "NUDGE_MESSAGES", service = "herald-messages-refresh" }, { binding = "NUDGE_BUILDS", service = "herald-build-generate" }]',
];

/** Consumers are reached only by their cron and service bindings, never from the internet. */
const NOT_PUBLIC = ["workers_dev = false", "preview_urls = false"];

export function envSection(name: string, main: string, cron: boolean): string {
  return [`[env.${name}]`, `main = "${main}"`, ...(cron ? ['triggers = { crons = ["* * * * *"] }', ...NOT_PUBLIC] : []), ...BINDINGS, `[env.${name}.vars]`, ...DEFAULT_VARS, ""].join("\n");
}

export function workerEntrySource(name: string): string {
  return `import { createWorkerApp } from "../../lib/http/app";
import group from "./index";

/** The \`${name}\` operation group as a Worker of its own: wrangler.toml [env.${name}]. */
export default createWorkerApp([group], { title: "Herald API: ${name}" });
`;
}

async function main() {
  let toml = fs.readFileSync(WRANGLER_CONFIG, "utf8");
  const { name: workerName, envs } = readWranglerToml(toml);
  const changed: string[] = [];

  const { table } = await routeTable();
  const tableFile = path.join(REPO_ROOT, ROUTE_TABLE_FILE);
  if (!fs.existsSync(tableFile) || fs.readFileSync(tableFile, "utf8") !== routeTableSource(table)) {
    fs.writeFileSync(tableFile, routeTableSource(table));
    changed.push(`wrote ${ROUTE_TABLE_FILE}`);
  }
  // The gateway's bindings sit in the top level, before the first section.
  const services = gatewayServicesToml(Object.keys(table), workerName);
  const topEnd = toml.search(/^\[/m);
  const top = toml.slice(0, topEnd);
  const current = GATEWAY_SERVICES.exec(top);
  if (current?.[0] !== services) {
    const newTop = current ? top.replace(GATEWAY_SERVICES, services) : top.replace(/^(main = .*\n)/m, `$1${services}`);
    toml = newTop + toml.slice(topEnd);
    changed.push("wrote the gateway's GROUP_* service bindings in wrangler.toml");
  }

  for (const [name, folder] of await groupFolders()) {
    if (!folder) continue;
    const entry = groupWorkerEntry(folder);
    const file = path.join(REPO_ROOT, entry);
    if (!fs.existsSync(file)) {
      fs.writeFileSync(file, workerEntrySource(name));
      changed.push(`wrote ${entry}`);
    }
    if (!envs.has(name)) {
      const section = envSection(name, entry, false) + "\n";
      const at = toml.indexOf(CONSUMERS_MARKER);
      toml = at >= 0 ? toml.slice(0, at) + section + toml.slice(at) : toml.trimEnd() + "\n\n" + section;
      changed.push(`added [env.${name}] to wrangler.toml`);
    }
  }
  for (const name of consumerNames()) {
    if (envs.has(name)) continue;
    toml = toml.trimEnd() + "\n\n" + envSection(name, `queues/${name}.ts`, true);
    changed.push(`added [env.${name}] to wrangler.toml`);
  }
  fs.writeFileSync(WRANGLER_CONFIG, toml.trimEnd() + "\n");

  for (const line of changed) console.log(line);
  const { problems } = await deployableWorkers();
  for (const problem of problems) console.log(`still to do: ${problem}`);
  if (!changed.length && !problems.length) console.log("wrangler.toml and the Worker entries are in step with functions/groups.ts and queues/.");
  process.exitCode = problems.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(REPO_ROOT, "local/sync-workers.ts")) await main();
