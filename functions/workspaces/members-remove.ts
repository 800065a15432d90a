import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { problems } from "../../lib/http/problem-schema";
import { removeMember } from "../../lib/workspaces/members";
import { MemberPathParams } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/workspaces/{id}/members/{user_id}",
  operationId: "removeWorkspaceMember",
  tags: ["workspaces"],
  summary: "Remove a member (admin or owner), or leave (yourself)",
  description:
    "Any member may remove themselves; removing someone else needs admin, and removing an owner needs an owner. The last owner cannot be removed (409 conflict). A removed member's next request gets 404.",
  request: { params: MemberPathParams },
  responses: { 204: { description: "Removed" }, ...problems(401, 403, 404, 409, 422) },
});

// Any member may reach it (to leave); removing someone else is checked on locked rows (lib/workspaces/members.ts).
export const access = workspaceRole("viewer", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, user_id } = c.req.valid("param");
  await db(c).transaction((tx) => removeMember(tx, auditActor(c), id, user_id));
  return c.body(null, 204);
};
