import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceMembers, workspaces } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { toWorkspace, Workspace, WorkspaceName } from "./schemas";

export const CreateWorkspaceRequest = z.object({ name: WorkspaceName }).openapi("CreateWorkspaceRequest");

export const route = createRoute({
  method: "post",
  path: "/workspaces",
  tags: ["workspaces"],
  summary: "Create a workspace; the caller becomes its owner",
  description: "Accepts an Idempotency-Key so a retried request never creates a second workspace.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateWorkspaceRequest) },
  responses: { 201: jsonResponse(Workspace, "The new workspace"), ...problems(400, 401, 409, 413, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  // No workspace exists yet: the key is scoped to the caller and this operation.
  return idempotent(c, { workspaceId: "", operation: "workspaces.create", request: body }, async (tx) => {
    const [workspace] = await tx.insert(workspaces).values({ id: newId("wsp"), name: body.name, createdBy: user.id }).returning();
    await tx.insert(workspaceMembers).values({ workspaceId: workspace.id, userId: user.id, role: "owner" });
    await audit(tx, { ...auditActor(c), workspaceId: workspace.id, action: "workspace.create", targetType: "workspace", targetId: workspace.id });
    return { status: 201, body: withSchema(c, Workspace, toWorkspace(workspace, "owner")) };
  }) as never;
};
