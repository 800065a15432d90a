import { and, eq } from "drizzle-orm";
import { workspaceMembers, type Role } from "../../db/schema";
import type { Queryable } from "../db/client";
import { ApiError, notFound } from "./errors";

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3, owner: 4 };

export const roleAtLeast = (role: Role, min: Role) => RANK[role] >= RANK[min];

/**
 * The caller's role in a workspace, or 404 when they are not a member (existence is never revealed),
 * or 403 when their role is below `min`.
 */
export async function requireRole(q: Queryable, userId: string, workspaceId: string, min: Role, what = "workspace"): Promise<Role> {
  const [member] = await q
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  if (!member) throw notFound(what);
  if (!roleAtLeast(member.role, min)) {
    throw new ApiError("forbidden", { detail: `This needs the ${min} role or higher in the workspace; yours is ${member.role}.` });
  }
  return member.role;
}
