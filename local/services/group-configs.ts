import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./wrangler";

/** The top level of wrangler.toml: the lines before its first section. */
function topLevel(toml: string): string[] {
  const lines = toml.split("\n");
  return lines.slice(
    0,
    lines.findIndex((l) => l.startsWith("[")),
  );
}

const topValue = (toml: string, key: string) => topLevel(toml).find((l) => l.startsWith(`${key} =`));
const absoluteMain = (line: string) => line.replace(/^main = "([^"]+)"$/, (_, main: string) => `main = ${JSON.stringify(path.join(REPO_ROOT, main))}`);
/** `assets = { directory = "…" }` with the folder made absolute (a config written elsewhere reads it relative to itself). */
const absoluteAssets = (line: string) =>
  line.replace(/^(assets = \{.*directory = )"([^"]+)"/, (_, head: string, dir: string) => `${head}${JSON.stringify(path.join(REPO_ROOT, dir))}`);

/**
 * An [env.<name>] section of wrangler.toml as a wrangler config of its own. `wrangler dev -c primary -c
 * more…` runs the further configs as Workers of the same workerd, reachable through the primary's service
 * bindings, but it applies one `--env` to all of them, and our groups are environments of one file. So: the
 * section's own lines (main made absolute, `[env.<name>.vars]` as `[vars]`, minus any `skip`) under the name
 * wrangler gives that environment's Worker (`<name>-<env>`) and the top level's compatibility settings.
 */
export function envAsConfig(toml: string, env: string, opts: { name?: string; main?: string; skip?: RegExp } = {}): string {
  const lines = toml.split("\n");
  const name = /^name = "([^"]+)"$/.exec(topValue(toml, "name") ?? "")?.[1];
  const start = lines.indexOf(`[env.${env}]`);
  if (!name || start < 0) throw new Error(`wrangler.toml has no [env.${env}] (or no top-level name)`);
  const section: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("[") && !line.startsWith(`[env.${env}.`)) break;
    if (line.startsWith("#") || opts.skip?.test(line)) continue;
    if (line.startsWith("main =")) section.push(absoluteMain(opts.main ? `main = "${opts.main}"` : line));
    else section.push(line.replace(`[env.${env}.`, "["));
  }
  const head = [`# Written by npm start from wrangler.toml's [env.${env}]; rewritten at each start.`, `name = "${opts.name ?? `${name}-${env}`}"`];
  return (
    [...head, topValue(toml, "compatibility_date"), topValue(toml, "compatibility_flags"), "send_metrics = false", ...section]
      .filter((l) => l !== undefined)
      .join("\n")
      .trimEnd() + "\n"
  );
}

/** The top level of wrangler.toml (the gateway) as a config of its own; with `service`, every group binding leads there. */
function gatewayAsConfig(toml: string, service?: string): string {
  const lines = topLevel(toml).filter((l) => !l.startsWith("#"));
  const led = (line: string) => (service ? line.replace(/service = "[^"]+"/, `service = "${service}"`) : line);
  return (
    ["# Written by npm start from wrangler.toml's top level; rewritten at each start.", ...lines.map((l) => absoluteAssets(absoluteMain(led(l))))]
      .join("\n")
      .trimEnd() + "\n"
  );
}

export interface LocalConfigs {
  /** The primary config of the API's `wrangler dev`: the gateway. */
  gateway: string;
  /** The group Workers behind it, each a further `--config`. */
  groups: string[];
  /** The consumers' Worker (queues/local.ts) with a consumer's bindings and variables. */
  consumers: string;
}

/**
 * The configs `npm start` runs, written into `dir` beside a `.env` with the Workers' variables (wrangler
 * reads a further config's variables from the `.env` beside it; 0600, like the gateway's own file).
 * `groupWorkers`: "each" runs every group's Worker as deployed; "one" runs every group in one Worker
 * (functions/all-groups.ts) that all the gateway's bindings lead to.
 */
export function writeLocalConfigs(dir: string, toml: string, groups: string[], varsText: string, groupWorkers: "each" | "one"): LocalConfigs {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, ".env"), varsText, { mode: 0o600 });
  const write = (file: string, text: string) => {
    fs.writeFileSync(path.join(dir, file), text);
    return path.join(dir, file);
  };
  const [first] = groups;
  const groupConfigs =
    groupWorkers === "each"
      ? groups.map((group) => write(`${group}.toml`, envAsConfig(toml, group)))
      : [write("all-groups.toml", envAsConfig(toml, first, { name: "herald-all-groups", main: "functions/all-groups.ts" }))];
  const consumer = readFirstConsumer(toml);
  return {
    gateway: write("gateway.toml", groupWorkers === "each" ? gatewayAsConfig(toml) : gatewayAsConfig(toml, "herald-all-groups")),
    groups: groupConfigs,
    // The pump drives the consumers (POST /<name>/drain), not their cron.
    consumers: write(
      "consumers.toml",
      envAsConfig(toml, consumer, { name: "herald-consumers", main: "queues/local.ts", skip: /^(triggers|workers_dev|preview_urls) =/ }),
    ),
  };
}

/**
 * Any consumer's section but the outbox relay's will do: they list the same bindings and variables. The relay also
 * has CRON_* bindings to the other consumers (its cron starts their minute), which lead nowhere locally.
 */
function readFirstConsumer(toml: string): string {
  const consumer = /^\[env\.((?!outbox-relay\])[A-Za-z0-9_-]+)\]\nmain = "queues\//m.exec(toml)?.[1];
  if (!consumer) throw new Error("wrangler.toml has no consumer section");
  return consumer;
}
