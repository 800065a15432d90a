import type { Context } from "hono";
import { openDb, type Database, type DbHandle } from "../db/client";
import { eq } from "drizzle-orm";
import { users, type Role } from "../../db/schema";
import type { ActorKind } from "../audit";
import type { Credential } from "../auth/read-guard";
import type { Access, Scope } from "./access";
import { errorFields, logEvent } from "../log";
import type { Env } from "../env";
import type { AfterCommit } from "../jobs/dispatch";

export interface AuthUser {
  id: string;
  email: string;
  isAdmin: boolean;
  /** Exactly one of these is set: the bearer token or the browser session that authenticated the request. */
  tokenId: string | null;
  sessionId: string | null;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    dbHandle?: DbHandle;
    user?: AuthUser;
    /** The caller's user row as authentication read it (lib/auth/caller.ts). */
    userRow?: typeof users.$inferSelect;
    /** The caller's role in the workspace the request names in its query, read with authentication. */
    membership?: { workspaceId: string; role: Role | null };
    /** The request's credential, as stored (hashed). */
    credential?: Credential;
    /** For a read beside authentication (lib/http/scoped-read.ts): authentication still in flight; rejects with its 401 / 429. */
    pendingCaller?: Promise<void>;
    /** The access rule the matched operation declared (lib/http/operation.ts). */
    access?: Access;
    /** What enforcing a workspace rule established (lib/http/enforce-access.ts). */
    scope?: Scope;
  };
};

export type AppContext = Context<AppEnv>;

function dbHandle(c: Context<AppEnv>): DbHandle {
  let handle = c.get("dbHandle");
  if (!handle) {
    handle = openDb(c.env);
    c.set("dbHandle", handle);
  }
  return handle;
}

/** The request's database; the Pool is opened on first use and closed when the response is done. */
export const db = (c: Context<AppEnv>): Database => dbHandle(c).db;

/** The same request's Pool, for statements compiled once (lib/db/compiled.ts). */
export const dbPool = (c: Context<AppEnv>) => dbHandle(c).pool;

/** Work that may outlive the response (Workers `waitUntil`; plain promises where there is no execution context). */
export function defer(c: Context, work: Promise<unknown>): void {
  const guarded = work.catch((err) => logEvent("error", "deferred work failed", { request_id: c.get("requestId"), ...errorFields(err) }));
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    // No ExecutionContext (Node tests call app.request directly): the promise simply runs.
  }
}

/** What a request gives work that outlives its answer (lib/jobs/dispatch.ts): its bindings and `defer`. */
export const afterCommit = (c: Context<AppEnv>): AfterCommit => ({ env: c.env, waitUntil: (work: Promise<unknown>) => defer(c, work) });

export function currentUser(c: Context<AppEnv>): AuthUser {
  const user = c.get("user");
  if (!user) throw new Error("route reached without authentication");
  return user;
}

/** Who did it, for an audit entry: the user, how they were authenticated, and this request's id. */
export function auditActor(c: Context<AppEnv>): { actorUserId: string; actorKind: ActorKind; requestId: string } {
  const user = currentUser(c);
  return { actorUserId: user.id, actorKind: user.sessionId ? "session" : "token", requestId: c.get("requestId") };
}

/** The caller's user row: as authentication read it (lib/auth/caller.ts), or read now. */
export async function callerRow(c: Context<AppEnv>): Promise<typeof users.$inferSelect> {
  const known = c.get("userRow");
  if (known) return known;
  const [row] = await db(c)
    .select()
    .from(users)
    .where(eq(users.id, currentUser(c).id));
  return row;
}
