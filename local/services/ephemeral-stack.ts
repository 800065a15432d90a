import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations } from "./migrate";
import { freePort } from "./ports";
import { startEmbeddedPostgres } from "./postgres";
import { startSqlOverHttp } from "../sql-over-http";
import { ensureQueues, startLocalSqs } from "./sqs";
import { startWsRelay } from "./ws-relay";

export interface EphemeralStack {
  /** Worker bindings for this stack (DATABASE_URL, NEON_WS_PROXY, SQS_*, queue URLs, …). */
  env: Record<string, string>;
  sqsPort: number;
  stop(): Promise<void>;
}

/**
 * Real Postgres (fsync off), the Neon WebSocket relay, the SQL-over-HTTP endpoint and a local SQS with every queue, on free
 * loopback ports in a temporary folder that is removed on stop. Used by the tests and benchmarks.
 */
export async function startEphemeralStack(label = "herald-test"): Promise<EphemeralStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  // Postgres runs as the OS user `postgres` when we are root: let it enter the folder if the way is open
  // (if not, postgres-os-user.ts keeps the data elsewhere).
  fs.chmodSync(dir, 0o755);
  // HERALD_PG_LOG=<file> keeps the server's log, for looking into a failure.
  const logFile = process.env.HERALD_PG_LOG;
  const pg = await startEmbeddedPostgres({
    dir: path.join(dir, "pg"),
    port: await freePort(),
    password: randomBytes(18).toString("base64url"),
    forTests: true,
    log: logFile ? (line) => fs.appendFileSync(logFile, line + "\n") : undefined,
  });
  const relay = await startWsRelay({ port: await freePort(), allowed: [`${pg.host}:${pg.port}`] });
  const sqlHttp = await startSqlOverHttp({ port: await freePort(), databaseUrl: pg.url });
  const sqsPort = await freePort();
  const sqs = await startLocalSqs(sqsPort);
  const env: Record<string, string> = {
    DATABASE_URL: pg.url,
    NEON_WS_PROXY: `127.0.0.1:${relay.port}/v2`,
    NEON_FETCH_ENDPOINT: sqlHttp.endpoint,
    PUBLIC_BASE_URL: "http://localhost:8787",
    SQS_ENDPOINT: sqs.endpoint,
    SQS_REGION: "us-east-1",
    SQS_ACCESS_KEY_ID: "local",
    SQS_SECRET_ACCESS_KEY: "local",
    INSTANCE_SECRET_KEY: randomBytes(32).toString("base64"),
    // Tests and benchmarks talk to receivers and servers on loopback.
    ALLOW_PRIVATE_URLS: "true",
  };
  await applyMigrations(env as { DATABASE_URL: string; NEON_WS_PROXY: string; NEON_FETCH_ENDPOINT: string });
  Object.assign(env, await ensureQueues(env));
  return {
    env,
    sqsPort,
    async stop() {
      await sqs.close();
      await relay.close();
      await sqlHttp.close();
      await pg.stop();
      fs.rmSync(pg.dataDir, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
