import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { db, type AppEnv } from "../../lib/http/context";
import { scope } from "../../lib/http/enforce-access";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { roleAtLeast } from "../../lib/http/workspace-guard";
import { listMembers } from "../../lib/workspaces/members";
import { Member, toMember } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/workspaces/{id}/members",
  operationId: "listWorkspaceMembers",
  tags: ["workspaces"],
  summary: "The workspace's members, oldest first (any member)",
  description: "Each member's e-mail address is shown only to admins and owners.",
  request: { params: z.object({ id: z.string().max(100).openapi({ description: "Workspace ID" }) }) },
  responses: { 200: jsonResponse(z.array(Member), "The members"), ...problems(401, 403, 404, 422) },
});

export const access = workspaceRole("viewer", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspaceId, role } = scope(c);
  const rows = await listMembers(db(c), workspaceId);
  const withEmail = roleAtLeast(role, "admin");
  return c.json(
    withSchemaEach(
      c,
      Member,
      rows.map((row) => toMember(row, withEmail)),
    ),
    200,
  );
};
