import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { addMember } from "../../lib/workspaces/join";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { RoleEnum, WorkspaceMember } from "./schemas";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const AddMemberRequest = z.object({ user_id: z.string().min(1).max(100), role: RoleEnum }).openapi("AddMemberRequest");

export const route = createRoute({
  method: "post",
  path: "/workspaces/{id}/members",
  operationId: "addWorkspaceMember",
  tags: ["workspaces"],
  summary: "Add a user to a workspace (admin or owner)",
  description: "Only an owner may add another owner.",
  request: { params: z.object({ id: z.string().max(100) }), body: jsonBody(AddMemberRequest) },
  responses: { 201: jsonResponse(WorkspaceMember, "The new member"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("admin", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  if (body.role === "owner" && scope(c).role !== "owner") {
    throw new ApiError("forbidden", { detail: "Only an owner can add another owner." });
  }
  const member = await db(c).transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, body.user_id));
    if (!user) {
      throw new ApiError("validation-error", {
        detail: "No user with this id.",
        errors: [{ location: "body.user_id", message: "No such user", value: body.user_id }],
      });
    }
    return addMember(tx, c.env, auditActor(c), id, user.id, body.role);
  });
  return c.json(
    withSchema(c, WorkspaceMember, { workspace_id: member.workspaceId, user_id: member.userId, role: member.role, created_at: member.createdAt.toISOString() }),
    201,
  );
};
