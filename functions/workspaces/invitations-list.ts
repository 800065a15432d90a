import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { db, type AppEnv } from "../../lib/http/context";
import { scope } from "../../lib/http/enforce-access";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { listInvitations, statusOf } from "../../lib/workspaces/invitations";
import { Invitation, toInvitation } from "./invitation-schemas";

export const route = createRoute({
  method: "get",
  path: "/workspaces/{id}/invitations",
  operationId: "listInvitations",
  tags: ["workspaces"],
  summary: "The workspace's invitations, newest first (admin or owner)",
  description: "Each with its status (pending, accepted, revoked, expired); never its token.",
  request: { params: z.object({ id: z.string().max(100).openapi({ description: "Workspace ID" }) }) },
  responses: { 200: jsonResponse(z.array(Invitation), "The invitations"), ...problems(401, 403, 404, 422) },
});

export const access = workspaceRole("admin", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const rows = await listInvitations(db(c), scope(c).workspaceId);
  return c.json(
    withSchemaEach(
      c,
      Invitation,
      rows.map(({ row, expired }) => toInvitation(row, statusOf({ ...row, expired }))),
    ),
    200,
  );
};
