import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { changeMemberRole } from "../../lib/workspaces/members";
import { Member, MemberPathParams, RoleEnum, toMember } from "./schemas";

export const ChangeMemberRoleRequest = z.object({ role: RoleEnum }).openapi("ChangeMemberRoleRequest");

export const route = createRoute({
  method: "patch",
  path: "/workspaces/{id}/members/{user_id}",
  operationId: "updateWorkspaceMember",
  tags: ["workspaces"],
  summary: "Change a member's role (admin or owner)",
  description:
    "Only an owner grants or takes the owner role. The last owner cannot be demoted (409 conflict); of two owners demoting each other at once, one succeeds. A demoted member's next request is judged by the new role.",
  request: { params: MemberPathParams, body: jsonBody(ChangeMemberRoleRequest) },
  responses: { 200: jsonResponse(Member, "The member with the new role"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("admin", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, user_id } = c.req.valid("param");
  const { role } = c.req.valid("json");
  const member = await db(c).transaction((tx) => changeMemberRole(tx, auditActor(c), id, user_id, role));
  return c.json(withSchema(c, Member, toMember(member, true)), 200);
};
