import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "../../local/services/migrate";
import { freePort } from "../../local/services/ports";
import { startEmbeddedPostgres } from "../../local/services/postgres";
import { ensureQueues, startLocalSqs } from "../../local/services/sqs";
import { startWsRelay } from "../../local/services/ws-relay";

/**
 * The real parts every Node test runs against: embedded Postgres, the Neon WebSocket relay and a
 * local SQS with dead-letter queues, started once per run on free loopback ports.
 */
export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "herald-test-"));
  // Postgres runs as the OS user `postgres` when we are root: it must be able to enter the folder.
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, "pg"), port: await freePort(), forTests: true });
  const relay = await startWsRelay({ port: await freePort(), allowed: [`${pg.host}:${pg.port}`] });
  const sqsPort = await freePort();
  const sqs = await startLocalSqs(sqsPort);
  const env = {
    DATABASE_URL: pg.url,
    NEON_WS_PROXY: `127.0.0.1:${relay.port}/v2`,
    PUBLIC_BASE_URL: "http://localhost:8787",
    SQS_ENDPOINT: sqs.endpoint,
    SQS_REGION: "us-east-1",
    SQS_ACCESS_KEY_ID: "local",
    SQS_SECRET_ACCESS_KEY: "local",
  };
  await applyMigrations(env);
  const queues = await ensureQueues(env);
  project.provide("env", { ...env, ...queues });
  project.provide("sqsPort", sqsPort);

  return async () => {
    await sqs.close();
    await relay.close();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    env: Record<string, string>;
    sqsPort: number;
  }
}
