/**
 * `npm start`: the whole of Herald on this machine (CONTRACT.md §1).
 *
 *   embedded Postgres (DATA_DIR/pg)  ←  WebSocket relay (the Neon driver's transactions)
 *                                    ←  SQL-over-HTTP endpoint (its single statements, on warm connections)
 *   local SQS (in memory) with each job kind's queue and dead-letter queue
 *   migrations, the bootstrap administrator
 *   a relay on 127.0.0.1:PORT that sets cf-connecting-ip to the socket's address, as Cloudflare's edge does
 *   wrangler dev functions/gateway.ts   on 127.0.0.1:API_WORKER_PORT (the API: the gateway, and behind its
 *     + functions/all-groups.ts                                      GROUP_* bindings, in the same workerd,
 *       (or each group's worker.ts)                                  every group in one Worker, or with
 *                                                                    HERALD_GROUP_WORKERS=each one Worker
 *                                                                    per group as deployed)
 *   wrangler dev queues/local.ts        on 127.0.0.1:CONSUMERS_PORT  (every queue consumer)
 *     (each Worker bundled once at start into DATA_DIR/wrangler/bundles and served from there, so that a source
 *     edit does not restart the Workers under their requests: local/services/dev-bundles.ts)
 *   a pump that keeps calling POST /<consumer>/drain on the latter
 *
 * Environment (all optional): PORT (8787), DATA_DIR (.data), DATABASE_URL, SQS_ENDPOINT,
 * SQS_QUEUE_URL_*, SQS_REGION, SQS_ACCESS_KEY_ID, SQS_SECRET_ACCESS_KEY, PUBLIC_BASE_URL,
 * BOOTSTRAP_ADMIN_EMAIL, BOOTSTRAP_ADMIN_TOKEN, INSTANCE_SECRET_KEY, ALLOW_PRIVATE_URLS (default true),
 * MAX_BODY_BYTES, MEDIA_MAX_BYTES, HERALD_GROUP_WORKERS (one, or each); and the ports of the parts behind the API, each a free port when not
 * given: API_WORKER_PORT (the API's wrangler dev, behind the relay on PORT), CONSUMERS_PORT (the consumers Worker), PG_PORT (embedded Postgres), WS_RELAY_PORT (the relay),
 * SQL_HTTP_PORT (the SQL-over-HTTP endpoint), SQS_PORT (embedded SQS).
 *
 * Ctrl-C (SIGINT), SIGTERM or SIGHUP stops everything it started.
 *
 * package.json runs it as `node --import tsx local/start.ts`, not through the tsx CLI: on Ctrl-C the
 * CLI SIGKILLs its child unless the child acknowledges the signal within about 30 ms, which a busy
 * machine misses, and a SIGKILLed launcher cannot stop Postgres. (If it happens anyway, wrangler's
 * guard stops wrangler, and the next start stops the Postgres left behind.)
 */
import { envVarOf, SETTINGS } from "../lib/settings/catalogue";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { JOB_KINDS, queueUrlVar, type JobKind } from "../lib/jobs/kinds";
import { ROUTES } from "../functions/routes";
import { ensureBootstrapAdmin } from "./services/bootstrap";
import { applyMigrations } from "./services/migrate";
import { takeOverDataDir } from "./services/data-dir";
import { serveFromBundles } from "./services/dev-bundles";
import { writeLocalConfigs } from "./services/group-configs";
import { writeDocsAssets } from "./docs-assets";
import { freePort, portIsFree } from "./services/ports";
import { embeddedPostgresUrl, startEmbeddedPostgres } from "./services/postgres";
import { processInfo, sleep, stopProcessGroup } from "./services/processes";
import { randomText } from "../lib/ids";
import { drainHeaders } from "../lib/jobs/drain-auth";
import { startPump, type Pump } from "./services/pump";
import { requeueUnfinishedJobs } from "./services/requeue";
import { bootstrapToken, instanceSecretKey, postgresPassword } from "./services/secrets";
import { ensureQueues, startLocalSqs } from "./services/sqs";
import { quietInspector } from "./services/quiet-inspector";
import { dotenvLine, forwardOutput, spawnWrangler, WRANGLER_CONFIG } from "./services/wrangler";
import { startWsRelay } from "./services/ws-relay";
import { startClientAddressRelay } from "./services/client-address-relay";
import { startSqlOverHttp } from "./sql-over-http";

// The AWS SDK's notice about future Node versions is not for people running Herald locally.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

const say = (line: string) => process.stdout.write(line + "\n");
const warn = (line: string) => process.stderr.write(line + "\n");

class StartError extends Error {}

/** A path as a person would type it here: relative inside the current folder, absolute elsewhere. */
function shown(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : p;
}

function portVar(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new StartError(`${name}=${raw} is not a port number`);
  return port;
}

async function portFor(name: string): Promise<number> {
  const port = portVar(name);
  if (port === undefined) return freePort();
  if (!(await portIsFree(port))) throw new StartError(`${name}=${port}: something already listens on 127.0.0.1:${port}`);
  return port;
}

/** Neon serves its own WebSocket endpoint; every other Postgres is reached through the local relay. */
const isNeonHost = (host: string) => /(^|\.)neon\.(tech|build)$/i.test(host);

// ---- What is running, and the order it stops in ----

/** Stop order: the pump first (nothing new starts), then the Workers, then what they use. */
const STOP = { pump: 0, workers: 1, relay: 2, sqs: 3, postgres: 4 } as const;

const running: { name: string; order: number; stop: () => Promise<void> }[] = [];
let stopping: Promise<void> | null = null;

async function track<T>(name: string, order: number, started: T, stop: (it: T) => Promise<void>): Promise<T> {
  running.push({ name, order, stop: () => stop(started) });
  // A signal came while this was starting: it must not outlive the launcher.
  if (stopping) await stop(started).catch(() => {});
  return started;
}

/** Every step of a start and a stop, with the time since start, in DATA_DIR/logs/launcher.log. */
const t0 = Date.now();
let timings: fs.WriteStream | undefined;
function phase(name: string): void {
  timings?.write(`${new Date().toISOString()} +${((Date.now() - t0) / 1000).toFixed(2)}s ${name}\n`);
}

/** Give up on an orderly stop after this long: kill what is left and exit. */
const STOP_DEADLINE_MS = 30_000;

function shutdown(reason: string, code: number): Promise<void> {
  stopping ??= (async () => {
    say(`Stopping Herald (${reason})…`);
    phase(`stopping (${reason})`);
    setTimeout(() => forceStop(`an orderly stop took over ${STOP_DEADLINE_MS / 1000} s`, code), STOP_DEADLINE_MS);
    // Parts of the same rank stop together.
    for (const order of [...new Set(running.map((p) => p.order))].sort((a, b) => a - b)) {
      await Promise.all(
        running
          .filter((p) => p.order === order)
          .map(async (part) => {
            // Logged before as well as after, so a stop that hangs names the part it waits for.
            phase(`stopping ${part.name}`);
            await part.stop().catch((error) => warn(`  could not stop ${part.name} cleanly: ${error}`));
            phase(`stopped ${part.name}`);
          }),
      );
    }
    say("Herald stopped.");
    phase("stopped");
    process.exit(code);
  })();
  return stopping;
}

/** The last resort: SIGKILL the wrangler groups, stop Postgres at once (SIGQUIT), exit. */
function forceStop(why: string, code: number): never {
  warn(`Forcing the stop: ${why}.`);
  phase(`forcing the stop: ${why}`);
  for (const child of children)
    if (child.pid)
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
  if (postgresPidFile) {
    try {
      const pid = Number(fs.readFileSync(postgresPidFile, "utf8").split("\n")[0]);
      if (processInfo(pid)) process.kill(pid, "SIGQUIT");
    } catch {}
  }
  process.exit(code);
}

function installSignalHandlers(): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    // Nothing else may exit the process on these signals (that would leave wrangler and workerd
    // behind): we take over. (tsx keeps a
    // hidden handler of its own, which process.listeners() does not list; it must stay.)
    for (const listener of process.listeners(signal)) process.off(signal, listener);
    process.on(signal, () => {
      if (stopping) {
        warn("Stopping already; press Ctrl-C again in a few seconds to force it.");
        forceOnNext(signal);
        return;
      }
      void shutdown(signal, signal === "SIGINT" ? 130 : signal === "SIGHUP" ? 129 : 143);
    });
  }
}

let forceArmed = false;
function forceOnNext(signal: NodeJS.Signals) {
  if (forceArmed) forceStop("asked again", signal === "SIGINT" ? 130 : 143);
  setTimeout(() => (forceArmed = true), 1000).unref();
}

// ---- wrangler dev ----

const children: ChildProcess[] = [];
/** The embedded Postgres's pid file, once it is ours. */
let postgresPidFile: string | undefined;

function runWranglerDev(label: string, args: string[], logFile: string, stateDir: string, quietLine?: RegExp): ChildProcess {
  const log = fs.createWriteStream(logFile, { flags: "a" });
  log.write(`\n---- ${new Date().toISOString()} wrangler ${args.join(" ")}\n`);
  const child = spawnWrangler(args, { stateDir, guard: true });
  children.push(child);
  forwardOutput(child.stdout!, log, label, say, quietLine);
  forwardOutput(child.stderr!, log, label, warn, quietLine);
  child.on("exit", (code, signal) => {
    log.end();
    if (!stopping) {
      warn(`[${label}] wrangler exited unexpectedly (${signal ?? `code ${code}`}); see ${shown(logFile)}`);
      void shutdown(`${label} exited`, 1);
    }
  });
  return child;
}

async function waitForHttp(
  url: string,
  ok: (res: Response) => boolean,
  opts: { child: ChildProcess; label: string; slowAfterMs: number; headers?: Record<string, string> },
): Promise<Response> {
  const started = Date.now();
  let warned = false;
  for (;;) {
    if (stopping) throw new StartError("stopping");
    if (opts.child.exitCode !== null || opts.child.signalCode !== null) throw new StartError(`${opts.label} did not start`);
    try {
      // Generous: the first request makes workerd compile the Worker, which takes seconds on a busy machine;
      // abandoning it would only start that over.
      const res = await fetch(url, { headers: opts.headers, signal: AbortSignal.timeout(30_000) });
      if (ok(res)) return res;
      await res.body?.cancel();
    } catch {}
    if (!warned && Date.now() - started > opts.slowAfterMs) {
      warned = true;
      warn(`Still waiting for ${url} (${Math.round((Date.now() - started) / 1000)} s)…`);
    }
    await sleep(200);
  }
}

// ---- Start: named steps, each given what it needs and handing on what it settled ----

/** Where this start runs: the API's port and the DATA_DIR it now holds. */
interface Site {
  port: number;
  apiUrl: string;
  dataDir: string;
  relDataDir: string;
  logsDir: string;
}

/** The bootstrap administrator: the given token, or the one kept under DATA_DIR (tokenFile). */
interface AdminCredentials {
  adminEmail: string;
  adminToken: string;
  tokenFile: string | undefined;
}

/** The embedded Postgres to start, when DATABASE_URL names none. */
interface EmbeddedPg {
  port: number;
  password: string;
}

type DbEnv = { DATABASE_URL: string; NEON_WS_PROXY: string | undefined; NEON_FETCH_ENDPOINT: string | undefined };

/** What wrangler dev is started with: the configs written under DATA_DIR/wrangler, and its ports. */
interface WorkerSetup {
  wranglerDir: string;
  stateDir: string;
  varsFile: string;
  /** Where the API's wrangler dev listens; PORT is the client-address relay in front of it. */
  apiWorkerPort: number;
  consumersPort: number;
  configs: ReturnType<typeof writeLocalConfigs>;
  apiInspector: number;
  consumersInspector: number;
}

/** Everything the later steps use, built step by step in main(). `vars` are the Workers' variables. */
interface Launch extends Site, AdminCredentials, WorkerSetup {
  vars: Record<string, string>;
  embeddedSqs: boolean;
  embeddedPg: EmbeddedPg | undefined;
  dbEnv: DbEnv;
  /** Set once the consumers answer; tracked (as "pump") before anything it drives starts, so a stop always reaches it. */
  pump: { current?: Pump };
}

/** The API's port (checked first, it is the one people choose) and the DATA_DIR, taken over from any earlier run. */
async function claimSite(): Promise<Site> {
  const port = portVar("PORT") ?? 8787;
  if (!(await portIsFree(port))) throw new StartError(`PORT=${port}: something already listens on 127.0.0.1:${port} (set PORT to use another port)`);
  const dataDir = path.resolve(process.env.DATA_DIR || ".data");
  const relDataDir = shown(dataDir);
  fs.mkdirSync(path.join(dataDir, "logs"), { recursive: true });
  const logsDir = path.join(dataDir, "logs");
  await takeOverDataDir(dataDir, {
    say,
    inUse: (pid) => new StartError(`Herald already runs with DATA_DIR ${shown(dataDir)} (process ${pid}); stop it first, or use another DATA_DIR`),
  });
  // How long each step took, for whoever wonders why a start (or a stop) was slow.
  timings = fs.createWriteStream(path.join(logsDir, "launcher.log"), { flags: "a" });
  phase(`start (pid ${process.pid})`);
  return { port, apiUrl: `http://127.0.0.1:${port}`, dataDir, relDataDir, logsDir };
}

/** The Workers' variables taken from this environment. */
function baseVars(port: number): Record<string, string> {
  const vars: Record<string, string> = {
    PUBLIC_BASE_URL: (process.env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    // CONTRACT.md §6: local webhooks and provider servers (on this machine) are allowed, unless told otherwise.
    ALLOW_PRIVATE_URLS: process.env.ALLOW_PRIVATE_URLS || "true",
  };
  // Optional settings of lib/env.ts, passed on when given.
  // Instance settings given as environment variables (lib/settings) win over saved ones, so they are passed on too.
  for (const name of ["MAX_BODY_BYTES", "RATE_LIMIT_PER_MINUTE", "MEDIA_MAX_BYTES", "INSTANCE_SECRET_KEY_PREVIOUS", ...SETTINGS.map((s) => envVarOf(s.key))]) {
    if (process.env[name] && !(name in vars)) vars[name] = process.env[name]!;
  }
  return vars;
}

/** The bootstrap administrator: checked before anything starts. */
function adminCredentials(dataDir: string): AdminCredentials {
  const adminEmail = process.env.BOOTSTRAP_ADMIN_EMAIL || "admin@localhost";
  let tokenFile: string | undefined;
  let adminToken = process.env.BOOTSTRAP_ADMIN_TOKEN;
  if (!adminToken) {
    const kept = bootstrapToken(dataDir);
    adminToken = kept.value;
    tokenFile = kept.file;
  } else if (adminToken.length < 32) {
    throw new StartError("BOOTSTRAP_ADMIN_TOKEN must be at least 32 characters");
  } else if (!/^[A-Za-z0-9_\-.~+/=]{32,512}$/.test(adminToken)) {
    throw new StartError("BOOTSTRAP_ADMIN_TOKEN may contain only letters, digits and _ - . ~ + / = (at most 512 characters)");
  }
  return { adminEmail, adminToken, tokenFile };
}

function addSecrets(vars: Record<string, string>, dataDir: string): void {
  vars.INSTANCE_SECRET_KEY = process.env.INSTANCE_SECRET_KEY || instanceSecretKey(dataDir).value;
  // Only holders of this drive the consumers' POST /drain (the pump, the API's nudge): new each start.
  vars.DRAIN_SECRET = randomText(48);
}

/** SQS: the given one, or the embedded (in-memory) one; its queues' URLs and credentials go into vars. Says whether it is embedded. */
async function setUpQueues(vars: Record<string, string>): Promise<boolean> {
  const givenQueueUrls = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k.startsWith("SQS_QUEUE_URL_") && v)) as Record<string, string>;
  const embeddedSqs = !process.env.SQS_ENDPOINT && Object.keys(givenQueueUrls).length === 0;
  const sqsEnv = {
    SQS_ENDPOINT: process.env.SQS_ENDPOINT ?? "",
    SQS_REGION: process.env.SQS_REGION || "us-east-1",
    SQS_ACCESS_KEY_ID: process.env.SQS_ACCESS_KEY_ID || "local",
    SQS_SECRET_ACCESS_KEY: process.env.SQS_SECRET_ACCESS_KEY || "local",
  };
  if (embeddedSqs) {
    phase("starting local SQS");
    const sqs = await track("local SQS", STOP.sqs, await startLocalSqs(await portFor("SQS_PORT")), (sqs) => sqs.close());
    sqsEnv.SQS_ENDPOINT = sqs.endpoint;
  }
  const missingQueues = (Object.keys(JOB_KINDS) as JobKind[]).map(queueUrlVar).filter((name) => !givenQueueUrls[name]);
  let queueUrls = givenQueueUrls;
  if (missingQueues.length > 0) {
    // Create (or find) the queues; explicitly given URLs win. A bus that does not answer yet is waited for.
    queueUrls = { ...(await ensureQueuesPatiently(sqsEnv)), ...givenQueueUrls };
  }
  Object.assign(vars, queueUrls);
  for (const [k, v] of Object.entries(sqsEnv)) if (v) vars[k] = v;
  return embeddedSqs;
}

/** Postgres: the given one, or the embedded one under DATA_DIR/pg (its address is known before it runs). */
async function chooseDatabase(vars: Record<string, string>, dataDir: string): Promise<EmbeddedPg | undefined> {
  const pgPort = process.env.DATABASE_URL ? undefined : await portFor("PG_PORT");
  // The embedded Postgres's superuser password: random per DATA_DIR, kept 0600 beside the data.
  const pgPassword = pgPort ? postgresPassword(dataDir) : undefined;
  vars.DATABASE_URL = process.env.DATABASE_URL || embeddedPostgresUrl(pgPort!, pgPassword!.value);
  return pgPort ? { port: pgPort, password: pgPassword!.value } : undefined;
}

/** The WebSocket relay and the SQL-over-HTTP endpoint, unless the database is Neon itself; their addresses go into vars. */
async function startDatabaseProxies(vars: Record<string, string>): Promise<DbEnv> {
  const dbUrl = new URL(vars.DATABASE_URL);
  if (!isNeonHost(dbUrl.hostname)) {
    const relay = await track(
      "WebSocket relay",
      STOP.relay,
      await startWsRelay({ port: await portFor("WS_RELAY_PORT"), allowed: [`${dbUrl.hostname}:${dbUrl.port || "5432"}`], origins: [vars.PUBLIC_BASE_URL] }),
      (relay) => relay.close(),
    );
    vars.NEON_WS_PROXY = `127.0.0.1:${relay.port}/v2`;
    // Single statements take Neon's HTTP path; locally this endpoint answers it over warm connections.
    const sqlHttp = await track(
      "SQL-over-HTTP endpoint",
      STOP.relay,
      await startSqlOverHttp({ port: await portFor("SQL_HTTP_PORT"), databaseUrl: vars.DATABASE_URL }),
      (s) => s.close(),
    );
    vars.NEON_FETCH_ENDPOINT = sqlHttp.endpoint;
  }
  return { DATABASE_URL: vars.DATABASE_URL, NEON_WS_PROXY: vars.NEON_WS_PROXY, NEON_FETCH_ENDPOINT: vars.NEON_FETCH_ENDPOINT };
}

/**
 * The Workers' configs, for Workers started now so that they boot while Postgres does: variables in a 0600 file
 * under DATA_DIR (not on command lines, not in the repo). The last variable (CONSUMERS_URL) is set here.
 */
async function writeWorkerConfigs(vars: Record<string, string>, dataDir: string): Promise<WorkerSetup> {
  const wranglerDir = path.join(dataDir, "wrangler");
  fs.mkdirSync(wranglerDir, { recursive: true });
  const consumersPort = await portFor("CONSUMERS_PORT");
  const apiWorkerPort = await portFor("API_WORKER_PORT");
  // The API nudges the consumers after a commit (lib/jobs/nudge.ts); the service bindings lead nowhere locally.
  vars.CONSUMERS_URL = `http://127.0.0.1:${consumersPort}`;
  const varsFile = path.join(wranglerDir, "vars.env");
  const varsText =
    Object.entries(vars)
      .map(([k, v]) => dotenvLine(k, v))
      .join("\n") + "\n";
  fs.writeFileSync(varsFile, varsText, { mode: 0o600 });
  fs.chmodSync(varsFile, 0o600);
  // The gateway is the primary Worker of its wrangler dev; the group Workers join it from configs of their
  // own (their wrangler.toml sections), so a request takes the same hop through a service binding as deployed.
  // By default every group is in one Worker behind all the bindings: a Worker per group (14 more bundles) made
  // the start about three times longer (20 s instead of 7 on 2 cores) and workerd about 370 MiB instead of 140.
  const groupWorkers = process.env.HERALD_GROUP_WORKERS || "one";
  if (groupWorkers !== "one" && groupWorkers !== "each")
    throw new StartError(`HERALD_GROUP_WORKERS=${groupWorkers}: say one (every group in one Worker, the default) or each (a Worker per group)`);
  // The gateway serves /docs's script as a static asset (wrangler.toml's `assets`).
  writeDocsAssets();
  const configs = writeLocalConfigs(path.join(wranglerDir, "configs"), fs.readFileSync(WRANGLER_CONFIG, "utf8"), Object.keys(ROUTES), varsText, groupWorkers);

  const [apiInspector, consumersInspector] = [await portFor("INSPECTOR_PORT"), await freePort()];
  const stateDir = path.join(wranglerDir, "config");
  return { wranglerDir, stateDir, varsFile, apiWorkerPort, consumersPort, configs, apiInspector, consumersInspector };
}

/** Arguments both wrangler devs take. */
function commonWranglerArgs(launch: Launch, inspector: number): string[] {
  return [
    "--ip",
    "127.0.0.1",
    "--inspector-port",
    String(inspector),
    // One state folder for both: the consumers see the API's local R2 bucket (media) and whatever else
    // wrangler simulates.
    "--persist-to",
    path.join(launch.wranglerDir, "state"),
    "--env-file",
    launch.varsFile,
    "--show-interactive-dev-session=false",
  ];
}

/**
 * Bundle the Workers once, then start wrangler dev for the API and for the consumers, and have workerd compile
 * both. Runs alongside startDatabase: a wrangler dev that bundles for itself restarts the Workers, cutting the
 * requests in flight, whenever a source file changes (local/services/dev-bundles.ts).
 */
async function startWorkers(launch: Launch): Promise<{ api: ChildProcess; consumers: ChildProcess }> {
  const { configs, wranglerDir, stateDir, logsDir } = launch;
  await serveFromBundles([configs.gateway, ...configs.groups, configs.consumers], { outRoot: path.join(wranglerDir, "bundles"), stateDir }).catch(
    (error: Error) => {
      throw new StartError(error.message);
    },
  );
  if (stopping) throw new StartError("stopping");
  phase("bundled; starting wrangler dev (consumers, then API)");
  // Both workerds keep their state in one folder, and one creating its SQLite files while the other uses them can end
  // either with SQLITE_BUSY ("database is locked"; seen on a loaded machine, at a simultaneous start and with the
  // consumers starting behind a busy API). The consumers start first and sit idle until the pump drains them, which
  // begins only once the API listens; the API starts when the consumers' workerd answers (which also compiles it).
  const consumers = runWranglerDev(
    "consumers",
    ["dev", "--config", configs.consumers, "--env=", "--port", String(launch.consumersPort), ...commonWranglerArgs(launch, launch.consumersInspector)],
    path.join(logsDir, "consumers.log"),
    stateDir,
    // The pump's own calls, every second or so: not worth a line each.
    /\b(POST|GET) \/[\w-]*\/?(drain)?(\?\S*)? \d{3}\b/,
  );
  await track("consumers (wrangler dev)", STOP.workers, consumers, (child) => stopProcessGroup(child.pid));
  await waitForHttp(`http://127.0.0.1:${launch.consumersPort}/`, () => true, { child: consumers, label: "the consumers' wrangler dev", slowAfterMs: 45_000 });
  phase("consumers' workerd answering; starting the API's");
  const apiConfigs = [configs.gateway, ...configs.groups].flatMap((c) => ["--config", c]);
  const api = runWranglerDev(
    "api",
    ["dev", ...apiConfigs, "--env=", "--port", String(launch.apiWorkerPort), ...commonWranglerArgs(launch, launch.apiInspector)],
    path.join(logsDir, "api.log"),
    stateDir,
  );
  await track("API (wrangler dev)", STOP.workers, api, (child) => stopProcessGroup(child.pid));
  phase("wrangler spawned");
  return { api, consumers };
}

/** The embedded Postgres (if any), then migrations, the bootstrap administrator, and the jobs lost with an in-memory queue. */
async function startDatabase(launch: Launch): Promise<Awaited<ReturnType<typeof ensureBootstrapAdmin>>> {
  const { embeddedPg, dataDir, logsDir, dbEnv } = launch;
  if (embeddedPg) {
    const pgDir = path.join(dataDir, "pg");
    postgresPidFile = path.join(pgDir, "postmaster.pid");
    if (!fs.existsSync(path.join(pgDir, "PG_VERSION"))) say(`Creating a Postgres database in ${shown(pgDir)} (first start)…`);
    const pgLog = fs.createWriteStream(path.join(logsDir, "postgres.log"), { flags: "a" });
    await track(
      "Postgres",
      STOP.postgres,
      await startEmbeddedPostgres({
        dir: pgDir,
        port: embeddedPg.port,
        password: embeddedPg.password,
        log: (line) => pgLog.write(line.endsWith("\n") ? line : line + "\n"),
      }),
      async (pg) => {
        await pg.stop();
        pgLog.end();
      },
    );
  }

  phase("Postgres ready; migrating");
  await applyMigrations(dbEnv);
  phase("migrated");
  const admin = await ensureBootstrapAdmin(dbEnv, launch.adminEmail, launch.adminToken);
  if (launch.embeddedSqs) {
    const requeued = await requeueUnfinishedJobs(dbEnv);
    if (requeued > 0) say(`Re-queued ${requeued} job${requeued === 1 ? "" : "s"} that had not finished before the last stop.`);
  }
  return admin;
}

/** Attach the quiet inspector client to a Worker's inspector (its network log off), unless HERALD_DEBUGGER=1 keeps it for a debugger. */
async function holdInspector(label: "API" | "consumers", port: number): Promise<void> {
  if (process.env.HERALD_DEBUGGER === "1") return;
  const client = await track(`inspector client (${label})`, STOP.workers, quietInspector(port, warn), async (c) => c.stop());
  void client.ready.then((held) => phase(`${label} inspector ${held ? "held, its network log off" : "not held"}`));
}

/** What a person needs to use the bootstrap administrator (or why it cannot be used). */
function reportAdmin(launch: Launch, admin: Awaited<ReturnType<typeof ensureBootstrapAdmin>>): void {
  const { tokenFile, adminEmail, apiUrl } = launch;
  if (admin.revoked) {
    const fix = tokenFile ? `delete ${shown(tokenFile)} and start again for a new one` : "set a new BOOTSTRAP_ADMIN_TOKEN";
    warn(`The bootstrap administrator's token was revoked and stays revoked; ${fix}.`);
  } else if (tokenFile) {
    const relToken = shown(tokenFile);
    say(
      admin.createdToken
        ? `Created the administrator ${adminEmail}; its API token is in ${relToken} (readable by you only).`
        : `Administrator: ${adminEmail}, API token in ${relToken}.`,
    );
    say(`  Try: curl -H "Authorization: Bearer $(cat ${/\s/.test(relToken) ? JSON.stringify(relToken) : relToken})" ${apiUrl}/auth/me`);
  } else if (admin.createdUser || admin.createdToken) {
    say(`Administrator ${adminEmail} can use the token given in BOOTSTRAP_ADMIN_TOKEN.`);
  }
}

/** Once the consumers list themselves, start the pump that drains them (unless a stop has begun). */
async function startDraining(launch: Launch, consumers: ChildProcess): Promise<void> {
  const consumersUrl = `http://127.0.0.1:${launch.consumersPort}`;
  const listing = await waitForHttp(`${consumersUrl}/`, (res) => res.ok, {
    child: consumers,
    label: "the consumers",
    slowAfterMs: 30_000,
    headers: drainHeaders(launch.vars.DRAIN_SECRET),
  });
  const { consumers: list } = (await listing.json()) as { consumers: { name: string; everySeconds?: number }[] };
  phase(`consumers ready: ${list.map((c) => c.name).join(", ")}`);
  await holdInspector("consumers", launch.consumersInspector);
  if (!stopping) launch.pump.current = startPump({ baseUrl: consumersUrl, headers: drainHeaders(launch.vars.DRAIN_SECRET), consumers: list, log: warn });
}

async function main(): Promise<void> {
  installSignalHandlers();

  const site = await claimSite();
  const vars = baseVars(site.port);
  const admin = adminCredentials(site.dataDir);
  addSecrets(vars, site.dataDir);
  const embeddedSqs = await setUpQueues(vars);
  const embeddedPg = await chooseDatabase(vars, site.dataDir);
  const dbEnv = await startDatabaseProxies(vars);
  const workerSetup = await writeWorkerConfigs(vars, site.dataDir);
  const pump: Launch["pump"] = {};
  await track("pump", STOP.pump, { stop: () => pump.current?.stop() ?? Promise.resolve() }, (p) => p.stop());
  const launch: Launch = { ...site, ...admin, ...workerSetup, vars, embeddedSqs, embeddedPg, dbEnv, pump };

  // PORT is taken now (checked free by claimSite), and answers 502 until the API's Workers listen behind it.
  await track(
    "client-address relay",
    STOP.workers,
    await startClientAddressRelay({ port: site.port, target: { host: "127.0.0.1", port: workerSetup.apiWorkerPort } }),
    (relay) => relay.close(),
  );
  phase("queues ready; bundling the Workers, starting Postgres");
  const workers = startWorkers(launch);
  const database = startDatabase(launch);
  // Either may fail while the other is still at work: the first failure stops the start (below); the other's
  // later one must not be an unhandled rejection, which would end the launcher before it stops what it started.
  workers.catch(() => {});
  database.catch(() => {});
  const [{ api, consumers }, bootstrapAdmin] = await Promise.all([workers, database]);

  phase("database ready; waiting for the API");
  await waitForHttp(`${launch.apiUrl}/healthz`, (res) => res.status === 200, { child: api, label: "the API", slowAfterMs: 45_000 });
  say(`Herald API listening on ${launch.apiUrl}`);
  phase("listening");
  await holdInspector("API", launch.apiInspector);
  reportAdmin(launch, bootstrapAdmin);
  say(
    `API reference: ${vars.PUBLIC_BASE_URL}/docs · data in ${launch.relDataDir} · logs in ${shown(launch.logsDir)} · started in ${((Date.now() - t0) / 1000).toFixed(1)} s · Ctrl-C stops`,
  );
  await startDraining(launch, consumers);
}

/** With an external SQS that does not answer yet, wait for it instead of giving up (Ctrl-C ends the wait). */
async function ensureQueuesPatiently(env: Parameters<typeof ensureQueues>[0]): Promise<Record<string, string>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ensureQueues(env);
    } catch (error) {
      if (stopping) throw new StartError("stopping");
      // SQS answered, and said no (credentials, a queue of that name with other settings, …): waiting will not help.
      if ((error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode) {
        throw new StartError(
          `SQS at ${env.SQS_ENDPOINT || `AWS ${env.SQS_REGION}`} refused to set up the queues: ${(error as Error).name}: ${(error as Error).message}`,
        );
      }
      const delay = Math.min(30, 2 ** attempt);
      warn(`SQS at ${env.SQS_ENDPOINT || `AWS ${env.SQS_REGION}`} does not answer (${(error as Error)?.name ?? error}); trying again in ${delay} s…`);
      await sleep(delay * 1000);
    }
  }
}

main().catch((error) => {
  if (stopping) return;
  warn(error instanceof StartError ? `Cannot start Herald: ${error.message}` : `Cannot start Herald: ${(error as Error)?.stack ?? error}`);
  void shutdown("start failed", 1);
});
