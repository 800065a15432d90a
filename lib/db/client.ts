import { neon, neonConfig, type Pool } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { Env } from "../env";
import { registerBatchSender } from "./batch-senders";
import { StatementPool } from "./statement-pool";

/** Without the relational query API (`db.query.*`, unused): building its configuration cost every request ~0.2 ms of CPU. */
export type Database = NeonDatabase;
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Either the database or an open transaction: helpers that must join the caller's transaction take this. */
export type Queryable = Database | Tx;

type DbEnv = Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY" | "NEON_FETCH_ENDPOINT">;

/** Local SQL-over-HTTP endpoints by database `host:port`; any other database is Neon, at Neon's own endpoint. */
const localFetchEndpoints = new Map<string, string>();
let fetchEndpointInstalled = false;
/** The settings configureDriver last applied: every request of an isolate passes the same ones. */
let configuredFor: string | undefined;

/**
 * Locally the Neon driver reaches a plain Postgres through our WebSocket relay (transactions) and our
 * SQL-over-HTTP endpoint (single statements); in production both are unset and the driver talks to Neon.
 */
function configureDriver(env: DbEnv): void {
  const key = `${env.DATABASE_URL}\n${env.NEON_FETCH_ENDPOINT ?? ""}\n${env.NEON_WS_PROXY ?? ""}`;
  if (key === configuredFor) return;
  configuredFor = key;
  if (env.NEON_FETCH_ENDPOINT) {
    const url = new URL(env.DATABASE_URL);
    localFetchEndpoints.set(`${url.hostname}:${url.port}`, env.NEON_FETCH_ENDPOINT);
  }
  if (!fetchEndpointInstalled) {
    fetchEndpointInstalled = true;
    const neonDefault = neonConfig.fetchEndpoint;
    neonConfig.fetchEndpoint = (host, port, options) =>
      localFetchEndpoints.get(`${host}:${port}`) ?? (typeof neonDefault === "function" ? neonDefault(host, port, options) : neonDefault);
  }
  const relay = env.NEON_WS_PROXY;
  if (!relay) return;
  neonConfig.wsProxy = (host, port) => `${relay}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  // As with Neon: the password goes with the start-up message (the local Postgres asks for it in clear on
  // loopback, as Neon's proxy does over TLS), saving a round trip per connection.
  neonConfig.pipelineConnect = "password";
}

/**
 * The HTTP query function per database. It holds no connection (each call is its own fetch, made in the
 * calling request), so unlike a Pool it may serve every request of the isolate; making it anew cost CPU.
 */
const httpQueries = new Map<string, ReturnType<typeof neon<boolean, true>>>();
function httpQuery(databaseUrl: string) {
  let query = httpQueries.get(databaseUrl);
  if (!query) {
    query = neon<boolean, true>(databaseUrl, { fullResults: true });
    httpQueries.set(databaseUrl, query);
  }
  return query;
}

export interface DbHandle {
  db: Database;
  pool: Pool;
  close(): Promise<void>;
}

/**
 * One handle per request or job (Workers cannot share I/O objects across requests). Single statements
 * cost one HTTP round trip and no connection; only a transaction opens a WebSocket (and closing the
 * handle ends it). Without a local HTTP endpoint next to the relay (a plain Postgres reached only through
 * the relay), everything goes over the WebSocket as before.
 */
export function openDb(env: DbEnv): DbHandle {
  configureDriver(env);
  const viaHttp = Boolean(env.NEON_FETCH_ENDPOINT) || !env.NEON_WS_PROXY;
  const http = viaHttp ? httpQuery(env.DATABASE_URL) : undefined;
  // One-shot statements go over HTTP (one round trip on a connection the server keeps warm), while a
  // transaction still opens a WebSocket session. (The driver's own `poolQueryViaFetch` does the same but is
  // global and drops the port; this is per database.)
  const pool = new StatementPool(
    { connectionString: env.DATABASE_URL, max: 5 },
    http && ((s) => http.query(s.text, s.params, { arrayMode: s.arrayMode, fullResults: true, types: s.types })),
  );
  // A client that loses its socket (idle, or refused by a full server) must not crash the isolate:
  // the query it was running rejects, and that is where the failure is handled. (Listening to the
  // pool's "connect" event would turn the driver's HTTP path off, so checked-out clients are wrapped.)
  pool.on("error", () => {});
  const guarded = new WeakSet<object>();
  type Client = { on(event: "error", listener: () => void): void };
  type Callback = (err: Error | undefined, client?: Client, done?: unknown) => void;
  const guard = <C extends Client | undefined>(client: C): C => {
    if (client && !guarded.has(client)) {
      guarded.add(client);
      client.on("error", () => {});
    }
    return client;
  };
  const connect = pool.connect.bind(pool) as unknown as (callback?: Callback) => Promise<Client> | undefined;
  // Both forms: drizzle awaits connect(); the pool's own query() passes a callback.
  (pool as unknown as { connect: typeof connect }).connect = (callback?: Callback) =>
    callback ? connect((err, client, done) => callback(err, guard(client), done)) : connect()!.then(guard);
  const db = drizzle({ client: pool });
  if (http) {
    // Statements that commit together go as one request (lib/db/batch.ts), as Neon's `transaction([...])`.
    registerBatchSender(db, (statements) =>
      http.transaction(statements.map((s) => http.query(s.text, s.params, { arrayMode: s.arrayMode, fullResults: true, types: s.types }))),
    );
  }
  return {
    db,
    pool,
    close: () => pool.end().catch(() => {}),
  };
}

/** Runs `run` with a handle of its own (openDb), closed when it ends, however it ends. */
export async function withDatabase<T>(env: DbEnv, run: (db: Database) => Promise<T>): Promise<T> {
  const { db, close } = openDb(env);
  try {
    return await run(db);
  } finally {
    await close();
  }
}
