import { and, eq } from "drizzle-orm";
import { workspaceMembers, type Role } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Context } from "hono";
import { currentUser, db, type AppEnv } from "./context";
import { checkRole } from "../workspaces/roles";

// Ranking roles is a domain rule (lib/workspaces/roles.ts); operations keep importing it from here.
export { checkRole, roleAtLeast, rolesAtLeast } from "../workspaces/roles";

/** The caller's role in a workspace, or 404 when they are not a member, or 403 when their role is below `min`. */
export async function requireRole(q: Queryable, userId: string, workspaceId: string, min: Role, what = "workspace"): Promise<Role> {
  const [member] = await q
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return checkRole(member?.role, min, what);
}

/**
 * requireRole for a read outside any transaction: when authentication already read the caller's role in
 * this workspace (the query's `workspace_id`, lib/http/auth.ts), no further round trip.
 */
export async function requireReadRole(c: Context<AppEnv>, workspaceId: string, min: Role, what = "workspace"): Promise<Role> {
  const known = c.get("membership");
  if (known?.workspaceId === workspaceId) return checkRole(known.role, min, what);
  return requireRole(db(c), currentUser(c).id, workspaceId, min, what);
}
