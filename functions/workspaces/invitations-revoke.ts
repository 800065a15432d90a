import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { problems } from "../../lib/http/problem-schema";
import { revokeInvitation } from "../../lib/workspaces/invitations";

export const route = createRoute({
  method: "delete",
  path: "/workspaces/{id}/invitations/{invitation_id}",
  operationId: "revokeInvitation",
  tags: ["workspaces"],
  summary: "Revoke a pending invitation (admin or owner)",
  description: "Its token stops working at once. One already accepted or revoked, or of another workspace → 404.",
  request: {
    params: z.object({
      id: z.string().max(100).openapi({ description: "Workspace ID" }),
      invitation_id: z.string().min(1).max(100).openapi({ description: "Invitation ID" }),
    }),
  },
  responses: { 204: { description: "Revoked" }, ...problems(401, 403, 404, 422) },
});

export const access = workspaceRole("admin", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, invitation_id } = c.req.valid("param");
  await db(c).transaction((tx) => revokeInvitation(tx, auditActor(c), id, invitation_id));
  return c.body(null, 204);
};
