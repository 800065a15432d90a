/**
 * wrangler.toml's per-Worker sections, from one source. Environments do not inherit vars or bindings, so each of
 * the group and consumer Workers lists its own, the same for all: this file is where they are said once, and
 * `npx tsx local/sync-workers.ts` writes every `[env.*]` section from it (local/workers.ts reports a file that is
 * not what it would write). The top level (the gateway) stays hand-written, but for its GROUP_* bindings.
 */
import { groupBinding } from "../lib/http/router";
import { cronBindingName } from "../lib/jobs/minute";
import { CONSUMER_OF, nudgeBindingName } from "../lib/jobs/nudge";
import type { JobKind } from "../lib/jobs/kinds";

/** Where the generated part of wrangler.toml begins; everything from here to the end is written by sync-workers. */
export const GROUPS_MARKER = "# ---- Operation groups (functions/groups.ts) ----";
export const CONSUMERS_MARKER = "# ---- Queue consumers (queues/) ----";

/** Non-secret defaults every group and consumer Worker gets (lib/env.ts). */
export const WORKER_VARS: Readonly<Record<string, string>> = { ALLOW_PRIVATE_URLS: "false", SQS_REGION: "us-east-1" };

/** The media library's object storage, for every group and consumer Worker. */
export const R2_BUCKETS = [{ binding: "MEDIA_BUCKET", bucket_name: "herald-media" }] as const;

/**
 * The Workers Rate Limiting bindings of every group Worker (lib/http/rate-limit.ts): a person's requests, and a
 * client address's requests that carry no person. Each namespace is the same in every group, so a budget is
 * counted once across the groups (per Cloudflare location); the period is 10 or 60 seconds.
 */
export const RATE_LIMITS = [
  { name: "RATE_LIMITER", namespace_id: "1001", limit: 1200, period: 60 },
  { name: "RATE_LIMITER_ADDRESS", namespace_id: "1002", limit: 600, period: 60 },
] as const;

/** Inline, as the section's other bindings are (local/services/group-configs.ts reads a section line by line). */
const rateLimitsLine = () =>
  `ratelimits = [${RATE_LIMITS.map((r) => `{ name = "${r.name}", namespace_id = "${r.namespace_id}", simple = { limit = ${r.limit}, period = ${r.period} } }`).join(", ")}]`;

/**
 * The one Worker with a cron trigger (the free plan allows five): each minute it starts every other consumer's
 * minute through a CRON_* service binding (lib/jobs/minute.ts), which this file keeps listing every consumer.
 */
export const CLOCK_WORKER = "outbox-relay";

/** Consumers are reached only by the relay's cron and service bindings, never from the internet. */
const NOT_PUBLIC = ["workers_dev = false", "preview_urls = false"];

interface ServiceBinding {
  binding: string;
  service: string;
}
const inline = (entries: readonly object[]) =>
  `[${entries
    .map(
      (e) =>
        `{ ${Object.entries(e)
          .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
          .join(", ")} }`,
    )
    .join(", ")}]`;

/** lib/jobs/nudge.ts: the consumers any Worker may nudge after a commit, a NUDGE_* binding per job kind. */
export function nudgeServices(workerName = "herald"): ServiceBinding[] {
  return Object.entries(CONSUMER_OF).map(([kind, consumer]) => ({ binding: nudgeBindingName(kind as JobKind), service: `${workerName}-${consumer}` }));
}

/** The clock's services: the NUDGE_* bindings and a CRON_* binding to every other consumer. */
export function clockServices(consumers: string[], workerName = "herald"): string {
  const cron = consumers.filter((c) => c !== CLOCK_WORKER).map((c) => ({ binding: cronBindingName(c), service: `${workerName}-${c}` }));
  return `services = ${inline([...nudgeServices(workerName), ...cron])}`;
}

/**
 * Groups whose operations call other groups' operations (the MCP tools, functions/mcp/call-operation.ts): their
 * Worker also has a GROUP_* service binding to every other group's Worker, as the gateway does.
 */
export const CALLING_GROUPS: readonly string[] = ["mcp"];

/** The GROUP_* bindings of a calling group: every other group's Worker (lib/http/router.ts names them). */
export function groupServices(name: string, groups: string[], workerName = "herald"): ServiceBinding[] {
  if (!CALLING_GROUPS.includes(name)) return [];
  return groups.filter((g) => g !== name).map((g) => ({ binding: groupBinding(g), service: `${workerName}-${g}` }));
}

/** An [env.<name>] section: a group, a consumer, or the clock (a consumer with the cron trigger). */
export function envSection(
  name: string,
  main: string,
  kind: "group" | "consumer",
  consumers: string[] = [],
  workerName = "herald",
  groups: string[] = [],
): string {
  const clock = kind === "consumer" && name === CLOCK_WORKER;
  return [
    `[env.${name}]`,
    `main = "${main}"`,
    ...(clock ? ['triggers = { crons = ["* * * * *"] }'] : []),
    ...(kind === "consumer" ? NOT_PUBLIC : []),
    `r2_buckets = ${inline(R2_BUCKETS)}`,
    ...(kind === "group" ? [rateLimitsLine()] : []),
    clock ? clockServices(consumers, workerName) : `services = ${inline([...nudgeServices(workerName), ...groupServices(name, groups, workerName)])}`,
    `[env.${name}.vars]`,
    ...Object.entries(WORKER_VARS).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
    "",
  ].join("\n");
}

/** Every Worker section, groups (name and entry, in functions/groups.ts's order) then consumers, with their headings. */
export function workerSections(groups: [name: string, entry: string][], consumers: string[], workerName = "herald"): string {
  return [
    GROUPS_MARKER,
    "# Written by `npx tsx local/sync-workers.ts` from local/wrangler-sections.ts, down to the end of the file: edit there.",
    "# Each: MEDIA_BUCKET, the media library's object storage (lib/env.ts; `wrangler dev` keeps it under --persist-to);",
    "# NUDGE_*, service bindings to the consumers, nudged right after a commit queues work (lib/jobs/nudge.ts), so a",
    "# publish-now does not wait for the next cron minute. Under `npm start` they are not connected (CONSUMERS_URL is used).",
    "# Groups also have RATE_LIMITER and RATE_LIMITER_ADDRESS, the Workers Rate Limiting bindings (lib/http/rate-limit.ts).",
    `# ${CALLING_GROUPS.join(", ")} also: GROUP_*, a service binding to every other group's Worker (its MCP tools call their operations).`,
    "",
    ...groups.map(([name, entry]) =>
      envSection(
        name,
        entry,
        "group",
        consumers,
        workerName,
        groups.map(([g]) => g),
      ),
    ),
    CONSUMERS_MARKER,
    "",
    ...consumers.map((name) => envSection(name, `queues/${name}.ts`, "consumer", consumers, workerName)),
  ]
    .join("\n")
    .trimEnd();
}

/** wrangler.toml with everything from GROUPS_MARKER on as workerSections writes it (appended if the marker is missing). */
export function withWorkerSections(toml: string, groups: [name: string, entry: string][], consumers: string[], workerName = "herald"): string {
  const at = toml.indexOf(GROUPS_MARKER);
  const head = at >= 0 ? toml.slice(0, at) : `${toml.trimEnd()}\n\n`;
  return `${head}${workerSections(groups, consumers, workerName)}\n`;
}
