/**
 * `npx tsx local/sync-workers.ts`: after adding an operation group to functions/groups.ts or a
 * consumer under queues/, write what makes it deployable on its own: the group's
 * functions/<folder>/worker.ts (an existing one is left alone), and every [env.<name>] section of wrangler.toml,
 * from the one source in local/wrangler-sections.ts (vars, R2 bucket, NUDGE_* bindings, the relay's cron and
 * CRON_* bindings). After adding or changing any operation, it also rewrites what the gateway routes by:
 * functions/routes.ts and the gateway's GROUP_* service bindings (wrangler.toml's top-level `services`).
 * Then `npm run build:dry-run` checks that everything bundles.
 */
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT, WRANGLER_CONFIG } from "./services/wrangler";
import { GATEWAY_SERVICES, gatewayServicesToml, ROUTE_TABLE_FILE, routeTable, routeTableSource } from "./route-table";
import { consumerNames, deployableWorkers, groupFolders, groupWorkerEntry, readWranglerToml } from "./workers";
import { withWorkerSections } from "./wrangler-sections";

export { CLOCK_WORKER, clockServices, envSection } from "./wrangler-sections";

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

  const groups: [string, string][] = [];
  for (const [name, folder] of await groupFolders()) {
    if (!folder) continue;
    const entry = groupWorkerEntry(folder);
    groups.push([name, entry]);
    const file = path.join(REPO_ROOT, entry);
    if (!fs.existsSync(file)) {
      fs.writeFileSync(file, workerEntrySource(name));
      changed.push(`wrote ${entry}`);
    }
    if (!envs.has(name)) changed.push(`added [env.${name}] to wrangler.toml`);
  }
  const consumers = consumerNames();
  for (const name of consumers) if (!envs.has(name)) changed.push(`added [env.${name}] to wrangler.toml`);
  // Every [env.*] section, from local/wrangler-sections.ts.
  const sections = withWorkerSections(toml, groups, consumers, workerName);
  if (sections !== toml) {
    if (!changed.some((c) => c.startsWith("added [env."))) changed.push("rewrote wrangler.toml's Worker sections from local/wrangler-sections.ts");
    toml = sections;
  }
  if (changed.length) fs.writeFileSync(WRANGLER_CONFIG, toml);

  for (const line of changed) console.log(line);
  const { problems } = await deployableWorkers();
  for (const problem of problems) console.log(`still to do: ${problem}`);
  if (!changed.length && !problems.length) console.log("wrangler.toml and the Worker entries are in step with functions/groups.ts and queues/.");
  process.exitCode = problems.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(REPO_ROOT, "local/sync-workers.ts")) await main();
