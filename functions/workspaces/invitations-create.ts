import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { scope } from "../../lib/http/enforce-access";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { createInvitation, INVITATION_DAYS } from "../../lib/workspaces/invitations";
import { CreatedInvitation } from "./invitation-schemas";
import { RoleEnum } from "./schemas";

export const CreateInvitationRequest = z.object({ email: z.string().trim().email().max(254), role: RoleEnum }).openapi("CreateInvitationRequest");

export const route = createRoute({
  method: "post",
  path: "/workspaces/{id}/invitations",
  operationId: "createInvitation",
  tags: ["workspaces"],
  summary: "Invite someone by e-mail address (admin or owner)",
  description: `Only an owner invites an owner. The token is shown only in this response (only its hash is stored); it is good for one use within ${INVITATION_DAYS} days. Someone already a member → 409 conflict.`,
  request: { params: z.object({ id: z.string().max(100).openapi({ description: "Workspace ID" }) }), body: jsonBody(CreateInvitationRequest) },
  responses: { 201: jsonResponse(CreatedInvitation, "The invitation, with its token"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("admin", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspaceId, role } = scope(c);
  const body = c.req.valid("json");
  const { row, token } = await db(c).transaction((tx) => createInvitation(tx, { ...auditActor(c), role }, workspaceId, body));
  c.header("cache-control", "no-store");
  return c.json(
    withSchema(c, CreatedInvitation, {
      id: row.id,
      workspace_id: row.workspaceId,
      email: row.email,
      role: row.role,
      expires_at: row.expiresAt.toISOString(),
      token,
    }),
    201,
  );
};
