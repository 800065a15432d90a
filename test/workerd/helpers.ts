// Helpers for tests that run INSIDE workerd (the "workerd" vitest project): every group (functions/all-groups.ts) is
// reached through the pool's loopback binding, and the database through the Neon driver
// over workerd's own WebSocket, exactly as in production.
import { env as workerEnv, exports as workerExports } from "cloudflare:workers";
import { issueToken } from "../../lib/auth/tokens";
import { createUser } from "../../lib/auth/users";
import { openDb, type Database } from "../../lib/db/client";
import type { Env } from "../../lib/env";

/** The Worker's bindings: DATABASE_URL, NEON_WS_PROXY, SQS_* from the shared globalSetup. */
export const env = workerEnv as unknown as Env;

/** `exports.default` is a loopback Fetcher to the gateway (the `main` in test/workerd/wrangler.toml). */
const gateway = (workerExports as unknown as { default: Fetcher }).default;

export interface WorkerResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<WorkerResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] = "application/json";
  }
  const res = await gateway.fetch(`http://localhost${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** A database handle of the test's own (opened, used and closed inside one test, as Workers require). */
export async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const handle = openDb(env);
  try {
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}

let counter = 0;

/** A fresh user and bearer token, written by the Neon driver from inside workerd. */
export function newUser() {
  return withDb(async (db) => {
    const email = `workerd-${Date.now()}-${counter++}-${Math.random().toString(36).slice(2)}@example.test`;
    const user = await createUser(db, { email, displayName: "Workerd User", isAdmin: false });
    const { token } = await issueToken(db, user.id, "workerd-test");
    return { id: user.id, email: user.email, token };
  });
}
