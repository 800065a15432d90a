import { and, eq } from "drizzle-orm";
import { workspaceMembers, type Role } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Context } from "hono";
import { currentUser, db, type AppEnv } from "./context";
import { ApiError, notFound } from "./errors";

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3, owner: 4 };

export const roleAtLeast = (role: Role, min: Role) => RANK[role] >= RANK[min];

/** Every role with at least the rights of `min`. */
export const rolesAtLeast = (min: Role): Role[] => (Object.keys(RANK) as Role[]).filter((role) => roleAtLeast(role, min));

/** 404 when not a member (existence is never revealed), 403 when the role is below `min`. */
export function checkRole(role: Role | null | undefined, min: Role, what: string): Role {
  if (!role) throw notFound(what);
  if (!roleAtLeast(role, min)) {
    throw new ApiError("forbidden", { detail: `This needs the ${min} role or higher in the workspace; yours is ${role}.` });
  }
  return role;
}

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
