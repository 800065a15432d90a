import { Pool, neonConfig } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import * as schema from "../../db/schema";
import type { Env } from "../env";

export type Database = NeonDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Either the database or an open transaction: helpers that must join the caller's transaction take this. */
export type Queryable = Database | Tx;

/**
 * Locally the Neon driver reaches a plain Postgres through our WebSocket relay; in production
 * NEON_WS_PROXY is unset and the driver talks to Neon directly.
 */
function configureDriver(env: Pick<Env, "NEON_WS_PROXY">): void {
  const relay = env.NEON_WS_PROXY;
  if (!relay) return;
  neonConfig.wsProxy = (host, port) => `${relay}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

export interface DbHandle {
  db: Database;
  pool: Pool;
  close(): Promise<void>;
}

/**
 * A Pool lives for one request (Workers cannot share I/O objects across requests), so every
 * request or job opens its own and closes it when done.
 */
export function openDb(env: Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY">): DbHandle {
  configureDriver(env);
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 5 });
  // A client that loses its socket (idle, or refused by a full server) must not crash the isolate:
  // the query it was running rejects, and that is where the failure is handled.
  pool.on("error", () => {});
  pool.on("connect", (client: { on(event: "error", listener: () => void): void }) => client.on("error", () => {}));
  return {
    db: drizzle({ client: pool, schema }),
    pool,
    close: () => pool.end().catch(() => {}),
  };
}
