import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceMembers, workspaces } from "../../db/schema";
import { audit } from "../../lib/audit";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { Workspace, WorkspaceName } from "./schemas";

export const CreateWorkspaceRequest = z.object({ name: WorkspaceName }).openapi("CreateWorkspaceRequest");

export const route = createRoute({
  method: "post",
  path: "/workspaces",
  tags: ["workspaces"],
  summary: "Create a workspace; the caller becomes its owner",
  request: { body: jsonBody(CreateWorkspaceRequest) },
  responses: { 201: jsonResponse(Workspace, "The new workspace"), ...problems(400, 401, 413, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("json");
  const user = currentUser(c);
  const workspace = await db(c).transaction(async (tx) => {
    const [workspace] = await tx.insert(workspaces).values({ id: newId("wsp"), name, createdBy: user.id }).returning();
    await tx.insert(workspaceMembers).values({ workspaceId: workspace.id, userId: user.id, role: "owner" });
    await audit(tx, { actorUserId: user.id, workspaceId: workspace.id, action: "workspace.create", targetType: "workspace", targetId: workspace.id });
    return workspace;
  });
  return c.json(withSchema(c, Workspace, { id: workspace.id, name: workspace.name, role: "owner", created_at: workspace.createdAt.toISOString() }), 201);
};
