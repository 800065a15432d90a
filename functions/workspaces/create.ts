import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { auditActor, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { createWorkspace } from "../../lib/workspaces/create";
import { toWorkspace, Workspace, WorkspaceName } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const CreateWorkspaceRequest = z
  .object({
    name: WorkspaceName,
    organization_id: z.string().min(1).max(100).optional().openapi({ description: "Organization billed for it; default: the caller's personal organization" }),
  })
  .openapi("CreateWorkspaceRequest");

export const route = createRoute({
  method: "post",
  path: "/workspaces",
  operationId: "createWorkspace",
  tags: ["workspaces"],
  summary: "Create a workspace; the caller becomes its owner",
  description:
    "Accepts an Idempotency-Key so a retried request never creates a second workspace. The workspace belongs to `organization_id` (one the caller belongs to, else 404) or the caller's personal organization. Over the plan's `workspaces` limit → 403 plan-limit-reached.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateWorkspaceRequest) },
  responses: { 201: jsonResponse(Workspace, "The new workspace"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

// Any signed-in caller: the organization, when named, is checked by createWorkspace (404 unless the caller belongs to it).
export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  // No workspace exists yet: the key is scoped to the caller and this operation.
  return idempotent(c, { workspaceId: "", operation: "workspaces.create", request: body }, async (tx) => {
    const workspace = await createWorkspace(tx, c.env, auditActor(c), body.name, body.organization_id);
    return { status: 201, body: withSchema(c, Workspace, toWorkspace(workspace, "owner")) };
  });
};
