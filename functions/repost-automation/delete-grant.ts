import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { repostGrants } from "../../db/schema";
import { audit } from "../../lib/audit";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
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
    // Either side's admin may end it; a member of neither gets 404.
    const side = await requireRole(tx, user.id, grant.targetWorkspaceId, "viewer", "grant").then(
      () => grant.targetWorkspaceId,
      () => grant.sourceWorkspaceId,
    );
    await requireRole(tx, user.id, side, "admin", "grant");
    await tx.delete(repostGrants).where(eq(repostGrants.id, id));
    await audit(tx, { actorUserId: user.id, workspaceId: grant.targetWorkspaceId, action: "repost_grant.delete", targetType: "repost_grant", targetId: id });
  });
  return c.body(null, 204);
};
