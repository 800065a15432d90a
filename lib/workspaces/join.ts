import { workspaceMembers, type Role } from "../../db/schema";
import { audit } from "../audit";
import { enforcePlanLimits } from "../billing/enforce";
import { isCountedMember, organizationOfWorkspace } from "../billing/organizations";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { DomainError } from "../errors";
import type { MemberActor } from "./members";

/**
 * Make `userId` a member at `role` in the caller's transaction, within the plan's `members` limit (someone
 * already in another workspace of the organization is counted already), with its audit entry. Already a
 * member → 409 conflict.
 */
export async function addMember(tx: Queryable, env: Env, actor: MemberActor, workspaceId: string, userId: string, role: Role) {
  const organizationId = await organizationOfWorkspace(tx, workspaceId);
  if (!(await isCountedMember(tx, organizationId, userId))) await enforcePlanLimits(tx, env, { organizationId }, [{ limit: "members", adding: 1 }]);
  const [row] = await tx.insert(workspaceMembers).values({ workspaceId, userId, role }).onConflictDoNothing().returning();
  if (!row) throw new DomainError("conflict", "This user is already a member of the workspace.");
  await audit(tx, { ...actor, workspaceId, action: "workspace.member.add", targetType: "user", targetId: userId });
  return row;
}
