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
import { cronBindingName } from "../lib/jobs/minute";

const CONSUMERS_MARKER = "# ---- Queue consumers (queues/) ----";

/** Non-secret defaults every Worker gets; vars are not inherited by environments, so each lists them. */
const DEFAULT_VARS = ['ALLOW_PRIVATE_URLS = "false"', 'SQS_REGION = "us-east-1"'];

const R2 = 'r2_buckets = [{ binding = "MEDIA_BUCKET", bucket_name = "herald-media" }]';
// lib/jobs/nudge.ts: the consumers each Worker may nudge after a commit.
const NUDGE_SERVICES = '{ binding = "NUDGE_PUBLISH", service = "herald-publish" }, { binding = "NUDGE_ANALYTICS", service = "herald-analytics-refresh" }, { binding = "NUDGE_MESSAGES", service = "herald-messages-refresh" }, { binding = "NUDGE_BUILDS", service = "herald-build-generate" }';

/** Consumers are reached only by the relay's cron and service bindings, never from the internet. */
const NOT_PUBLIC = ["workers_dev = false", "preview_urls = false"];

/**
 * The one Worker with a cron trigger (the free plan allows five): each minute it starts every other consumer's
 * minute through a CRON_* service binding (lib/jobs/minute.ts), which this script keeps listing every consumer.
 */
export const CLOCK_WORKER = "outbox-relay";

/** The clock's services line: the usual NUDGE_* bindings and a CRON_* binding to every other consumer. */
export function clockServices(consumers: string[], workerName = "herald"): string {
  const cron = consumers.filter((c) => c !== CLOCK_WORKER).map((c) => `{ binding = "${cronBindingName(c)}", service = "${workerName}-${c}" }`);
  return `services = [${[NUDGE_SERVICES, ...cron].join(", ")}]`;
}

/** An [env.<name>] section: a group ("group"), a consumer, or the clock (a consumer with the cron trigger). */
export function envSection(name: string, main: string, kind: "group" | "consumer", consumers: string[] = []): string {
  const clock = kind === "consumer" && name === CLOCK_WORKER;
  return [
    `[env.${name}]`,
    `main = "${main}"`,
    ...(clock ? ['triggers = { crons = ["* * * * *"] }'] : []),
    ...(kind === "consumer" ? NOT_PUBLIC : []),
    R2,
    clock ? clockServices(consumers) : `services = [${NUDGE_SERVICES}]`,
    `[env.${name}.vars]`,
    ...DEFAULT_VARS,
    "",
  ].join("\n");
}

/** Rewrites the clock section's `services` line (a consumer added or removed since); `null` if already so or absent. */
export function withClockServices(toml: string, consumers: string[], workerName = "herald"): string | null {
  const section = new RegExp(`^\\[env\\.${CLOCK_WORKER}\\]\\n(?:(?!\\[).*\\n)*?services = .*$`, "m");
  const match = section.exec(toml);
  if (!match) return null;
  const line = clockServices(consumers, workerName);
  const updated = match[0].replace(/services = .*$/, line);
  return updated === match[0] ? null : toml.slice(0, match.index) + updated + toml.slice(match.index + match[0].length);
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
      const section = envSection(name, entry, "group") + "\n";
      const at = toml.indexOf(CONSUMERS_MARKER);
      toml = at >= 0 ? toml.slice(0, at) + section + toml.slice(at) : toml.trimEnd() + "\n\n" + section;
      changed.push(`added [env.${name}] to wrangler.toml`);
    }
  }
  const consumers = consumerNames();
  for (const name of consumers) {
    if (envs.has(name)) continue;
    toml = toml.trimEnd() + "\n\n" + envSection(name, `queues/${name}.ts`, "consumer", consumers);
    changed.push(`added [env.${name}] to wrangler.toml`);
  }
  const clocked = withClockServices(toml, consumers, workerName);
  if (clocked) {
    toml = clocked;
    changed.push(`wrote [env.${CLOCK_WORKER}]'s CRON_* service bindings in wrangler.toml`);
  }
  fs.writeFileSync(WRANGLER_CONFIG, toml.trimEnd() + "\n");

  for (const line of changed) console.log(line);
  const { problems } = await deployableWorkers();
  for (const problem of problems) console.log(`still to do: ${problem}`);
  if (!changed.length && !problems.length) console.log("wrangler.toml and the Worker entries are in step with functions/groups.ts and queues/.");
  process.exitCode = problems.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(REPO_ROOT, "local/sync-workers.ts")) await main();
