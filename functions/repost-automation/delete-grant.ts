import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, inArray } from "drizzle-orm";
import { repostGrants, workspaceMembers } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { roleAtLeast } from "../../lib/http/workspace-guard";
import { GrantIdParams } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/repost-automation/grants/{id}",
  tags: ["repost-automation"],
  summary: "Withdraw a grant (admin or owner of the workspace that gave or received it)",
  description: "Policies naming the account as a target stop reposting through it: the evaluator checks grants on every run.",
  request: { params: GrantIdParams },
  responses: { 204: { description: "Withdrawn" }, ...problems(401, 403, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const user = currentUser(c);
  await db(c).transaction(async (tx) => {
    const [grant] = await tx.select().from(repostGrants).where(eq(repostGrants.id, id)).for("update");
    if (!grant) throw notFound("grant");
    // Either side's admin may end it: a member of neither gets 404, a member below admin on both sides 403.
    const roles = await tx
      .select({ role: workspaceMembers.role })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.userId, user.id), inArray(workspaceMembers.workspaceId, [grant.targetWorkspaceId, grant.sourceWorkspaceId])));
    if (roles.length === 0) throw notFound("grant");
    if (!roles.some((r) => roleAtLeast(r.role, "admin")))
      throw new ApiError("forbidden", { detail: "This needs the admin role or higher in the workspace that gave or received the grant." });
    await tx.delete(repostGrants).where(eq(repostGrants.id, id));
    await audit(tx, { ...auditActor(c), workspaceId: grant.targetWorkspaceId, action: "repost_grant.delete", targetType: "repost_grant", targetId: id });
  });
  return c.body(null, 204);
};
