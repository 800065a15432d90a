import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const WRANGLER_CONFIG = path.join(REPO_ROOT, "wrangler.toml");

/** The wrangler CLI of node_modules (pinned in package.json), run with this Node. */
export const WRANGLER_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin/wrangler.js");

/**
 * Environment for wrangler: quiet and offline (STACK.md). No metrics, no error reports, no
 * workers.cloudflare.com lookup, no banner (the banner is what runs the npm update check), global
 * state under `stateDir` instead of ~/.config, and never the launcher's own environment as Worker vars.
 */
export function quietWranglerEnv(stateDir: string): NodeJS.ProcessEnv {
  fs.mkdirSync(stateDir, { recursive: true });
  return {
    ...process.env,
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    XDG_CONFIG_HOME: stateDir,
    WRANGLER_LOG_PATH: path.join(stateDir, "wrangler-logs"),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    CLOUDFLARE_INCLUDE_PROCESS_ENV: "false",
    CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
}

const GUARD = path.join(REPO_ROOT, "local/services/guard.mjs");

/**
 * Spawn `wrangler <args>`. With `guard` (long-running `wrangler dev`): in a process group of its own,
 * so it and its workerd can be stopped together (signal the group: `process.kill(-child.pid, …)`), led
 * by a small guard process that stops the group if this process dies without doing so (guard.mjs);
 * keep `child.stdin` open. Without (short commands): in the caller's group, so Ctrl-C reaches it.
 */
export function spawnWrangler(args: string[], opts: { stateDir: string; guard?: boolean }): ChildProcess {
  const command = opts.guard ? [GUARD, process.execPath, WRANGLER_BIN, ...args] : [WRANGLER_BIN, ...args];
  return spawn(process.execPath, command, {
    cwd: REPO_ROOT,
    env: quietWranglerEnv(opts.stateDir),
    stdio: [opts.guard ? "pipe" : "ignore", "pipe", "pipe"],
    detached: opts.guard === true,
  });
}

/**
 * `wrangler deploy --dry-run --config <config> --env=<env> --outdir <outDir>`: the Worker bundled exactly as a deploy
 * would upload it, nothing sent. Resolves with wrangler's exit code and its output (for a failure's message).
 */
export function bundleWithWrangler(opts: { config: string; env: string; outDir: string; stateDir: string }): Promise<{ code: number | null; output: string }> {
  fs.rmSync(opts.outDir, { recursive: true, force: true });
  const child = spawnWrangler(["deploy", "--dry-run", "--config", opts.config, `--env=${opts.env}`, "--outdir", opts.outDir], { stateDir: opts.stateDir });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString("utf8")));
  return new Promise((resolve) => {
    child.on("error", (error) => (output += String(error)));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * One line of a dotenv file for wrangler's `--env-file`, read back verbatim: dotenv takes a quoted
 * value literally, and wrangler's dotenv-expand then turns `\$` into `$` (and would expand a bare `$X`).
 */
export function dotenvLine(key: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`${key} must be a single line`);
  const quote = ["'", "`", '"'].find((q) => !value.includes(q));
  if (!quote) throw new Error(`${key} contains every kind of quote; it cannot be passed to wrangler`);
  return `${key}=${quote}${value.replace(/\$/g, "\\$")}${quote}`;
}

/** wrangler's start-up chatter that says nothing the launcher does not (the variables are ours). */
const WRANGLER_NOISE = [
  /^Using (secrets|vars) defined in /,
  /^Service bindings, Durable Object bindings/,
  /^Your Worker has access to the following bindings/,
  /^Binding\s+Resource/,
  /^env\.\w+ \(/,
  /Starting local server/,
  /\bReady on https?:/,
  /Logs were written to/,
];
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * A request line's query string (`GET /messages?q=… 200`) may carry tokens, e-mail addresses or
 * content: the log and the terminal keep the path only.
 */
export const withoutQueries = (line: string) => line.replace(/(\/[^\s?#]*)\?[^\s#]*/g, "$1?…");

/**
 * Copy a wrangler stream to its log file (queries removed) and to the terminal line by line without
 * the chatter.
 */
export function forwardOutput(stream: NodeJS.ReadableStream, log: NodeJS.WritableStream, label: string, out: (line: string) => void, quietLine?: RegExp): void {
  let buffer = "";
  stream.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const raw = withoutQueries(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      log.write(raw + "\n");
      let line = raw.replace(/\s+$/, "");
      if (!process.stdout.isTTY) line = line.replace(ANSI, "");
      if (!line.trim() || quietLine?.test(line) || WRANGLER_NOISE.some((re) => re.test(line.trim()))) continue;
      out(`[${label}] ${line}`);
    }
  });
  stream.on("end", () => {
    if (buffer) log.write(withoutQueries(buffer));
  });
}
