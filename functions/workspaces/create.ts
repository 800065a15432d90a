import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceMembers, workspaces } from "../../db/schema";
import { audit } from "../../lib/audit";
import { enforcePlanLimits } from "../../lib/billing/enforce";
import { isCountedMember, personalOrganizationId, requireOrganizationMember } from "../../lib/billing/organizations";
import { currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { toWorkspace, Workspace, WorkspaceName } from "./schemas";

export const CreateWorkspaceRequest = z
  .object({
    name: WorkspaceName,
    organization_id: z.string().min(1).max(100).optional().openapi({ description: "Organization billed for it; default: the caller's personal organization" }),
  })
  .openapi("CreateWorkspaceRequest");

export const route = createRoute({
  method: "post",
  path: "/workspaces",
  tags: ["workspaces"],
  summary: "Create a workspace; the caller becomes its owner",
  description:
    "Accepts an Idempotency-Key so a retried request never creates a second workspace. The workspace belongs to `organization_id` (one the caller belongs to, else 404) or the caller's personal organization. Over the plan's `workspaces` limit → 403 plan-limit-reached.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateWorkspaceRequest) },
  responses: { 201: jsonResponse(Workspace, "The new workspace"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  // No workspace exists yet: the key is scoped to the caller and this operation.
  return idempotent(c, { workspaceId: "", operation: "workspaces.create", request: body }, async (tx) => {
    const workspace = await createWorkspace(tx, c.env, user.id, body.name, body.organization_id);
    return { status: 201, body: withSchema(c, Workspace, toWorkspace(workspace, "owner")) };
  }) as never;
};

/**
 * Create a workspace owned by the user in an organization (theirs by default) inside the caller's
 * transaction, within the plan's `workspaces` and `members` limits, with its audit entry.
 */
export async function createWorkspace(tx: Parameters<Parameters<typeof idempotent>[2]>[0], env: AppEnv["Bindings"], userId: string, name: string, organizationId?: string) {
  const orgId = organizationId ?? (await personalOrganizationId(tx, userId));
  if (organizationId !== undefined) await requireOrganizationMember(tx, userId, organizationId);
  const joins = !(await isCountedMember(tx, orgId, userId));
  await enforcePlanLimits(tx, env, { organizationId: orgId }, [{ limit: "workspaces", adding: 1 }, ...(joins ? [{ limit: "members" as const, adding: 1 }] : [])]);
  const [workspace] = await tx.insert(workspaces).values({ id: newId("wsp"), name, organizationId: orgId, createdBy: userId }).returning();
  await tx.insert(workspaceMembers).values({ workspaceId: workspace.id, userId, role: "owner" });
  await audit(tx, { actorUserId: userId, workspaceId: workspace.id, action: "workspace.create", targetType: "workspace", targetId: workspace.id });
  return workspace;
}
