import type { Context } from "hono";
import { sql, type SQL } from "drizzle-orm";
import type { Role } from "../../db/schema";
import { callerMayRead } from "../auth/read-guard";
import type { AppEnv } from "./context";
import { requireReadRole, rolesAtLeast } from "./workspace-guard";

/**
 * Lists (GET with one `workspace_id`) whose handler reads through guardedRead. For these, authentication
 * (lib/http/auth.ts) does not hold the request until the caller is known: the route's first read goes out
 * beside the authentication statement, so the request costs one database round trip instead of two.
 */
export const GUARDED_READ_PATHS: ReadonlySet<string> = new Set(["/publications", "/media"]);

/**
 * Runs `read` beside the pending authentication. `read` must put `guard` into every statement it sends: it
 * holds only for a live credential whose user has `min` or more in the workspace, so nothing is read for
 * anyone else. Nothing is answered before authentication is known: a failed authentication wins (401 / 429),
 * then the role (404 / 403), then the read's own errors (e.g. a forged cursor, 422), in that order as before.
 * Without a pending authentication (any other route, or Node tests that call a handler directly) it checks
 * the role first and reads with a guard that is simply true.
 */
export async function guardedRead<T>(c: Context<AppEnv>, workspaceId: string, min: Role, read: (guard: SQL) => Promise<T>): Promise<{ role: Role; result: T }> {
  const pending = c.get("pendingCaller");
  const credential = c.get("credential");
  if (!pending || !credential) {
    const role = await requireReadRole(c, workspaceId, min);
    return { role, result: await read(sql`true`) };
  }
  const reading = Promise.resolve().then(() => read(callerMayRead(credential, workspaceId, rolesAtLeast(min))));
  const [caller, result] = await Promise.allSettled([pending, reading]);
  if (caller.status === "rejected") throw caller.reason;
  // Authentication read the role in this workspace with the caller: no round trip here.
  const role = await requireReadRole(c, workspaceId, min);
  if (result.status === "rejected") throw result.reason;
  return { role, result: result.value };
}
