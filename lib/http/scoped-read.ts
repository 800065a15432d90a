import type { Context } from "hono";
import { sql, type SQL } from "drizzle-orm";
import type { Role } from "../../db/schema";
import { callerMayRead } from "../auth/read-guard";
import type { AppEnv } from "./context";
import { requireReadRole, rolesAtLeast } from "./workspace-guard";

/**
 * The read of a list declared `readBesideAuth` (lib/http/access.ts): authentication (lib/http/auth.ts) does not
 * hold such a request until the caller is known, so the route's first read goes out beside the authentication
 * statement and the request costs one database round trip instead of two.
 *
 * `read` must put `guard` into every statement it sends: it holds only for a live credential whose user has the
 * declared role or more in the workspace, so nothing is read for anyone else. Nothing is answered before
 * authentication is known: a failed authentication wins (401 / 429), then the role (404 / 403), then the read's
 * own errors (e.g. a forged cursor, 422), in that order. Without a pending authentication (Node tests that call
 * a handler directly) it checks the role first and reads with a guard that is simply true.
 */
export async function scopedRead<T>(c: Context<AppEnv>, read: (guard: SQL) => Promise<T>): Promise<{ role: Role; result: T }> {
  const access = c.get("access");
  if (access?.kind !== "workspace-role" || !access.readBesideAuth || "resource" in access.workspace) {
    throw new Error("scopedRead is for routes declared workspaceRole(…, inQuery(…), { readBesideAuth: true })");
  }
  const { min } = access;
  // The validators have accepted the query by now.
  const workspaceId = c.req.query(access.workspace.field) ?? "";
  const pending = c.get("pendingCaller");
  const credential = c.get("credential");
  let role: Role;
  let result: T;
  if (!pending || !credential) {
    role = await requireReadRole(c, workspaceId, min);
    result = await read(sql`true`);
  } else {
    const reading = Promise.resolve().then(() => read(callerMayRead(credential, workspaceId, rolesAtLeast(min))));
    const [caller, outcome] = await Promise.allSettled([pending, reading]);
    if (caller.status === "rejected") throw caller.reason;
    // Authentication read the role in this workspace with the caller: no round trip here.
    role = await requireReadRole(c, workspaceId, min);
    if (outcome.status === "rejected") throw outcome.reason;
    result = outcome.value;
  }
  c.set("scope", { workspaceId, role, rows: {} });
  return { role, result };
}
