import { workspaceMembers, workspaces } from "../../db/schema";
import { audit, type AuditEntry } from "../audit";
import { enforcePlanLimits } from "../billing/enforce";
import { isCountedMember, personalOrganizationId, requireOrganizationMember } from "../billing/organizations";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { newId } from "../ids";

/**
 * Create a workspace owned by the acting user in an organization (theirs by default) inside the caller's
 * transaction, within the plan's `workspaces` and `members` limits, with its audit entry.
 */
export async function createWorkspace(
  tx: Queryable,
  env: Env,
  actor: Pick<AuditEntry, "actorKind" | "requestId"> & { actorUserId: string },
  name: string,
  organizationId?: string,
) {
  const userId = actor.actorUserId;
  const orgId = organizationId ?? (await personalOrganizationId(tx, userId));
  if (organizationId !== undefined) await requireOrganizationMember(tx, userId, organizationId);
  const joins = !(await isCountedMember(tx, orgId, userId));
  await enforcePlanLimits(tx, env, { organizationId: orgId }, [
    { limit: "workspaces", adding: 1 },
    ...(joins ? [{ limit: "members" as const, adding: 1 }] : []),
  ]);
  const [workspace] = await tx
    .insert(workspaces)
    .values({ id: newId("wsp"), name, organizationId: orgId, createdBy: userId })
    .returning();
  await tx.insert(workspaceMembers).values({ workspaceId: workspace.id, userId, role: "owner" });
  await audit(tx, { ...actor, workspaceId: workspace.id, action: "workspace.create", targetType: "workspace", targetId: workspace.id });
  return workspace;
}
