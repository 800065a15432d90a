import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { repostAttempts, repostGrants } from "../../db/schema";
import { dropQueuedAttempts } from "../../lib/repost/withdrawals";
import { audit } from "../../lib/audit";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { GrantIdParams } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "delete",
  path: "/repost-automation/grants/{id}",
  operationId: "deleteRepostGrant",
  tags: ["repost-automation"],
  summary: "Withdraw a grant (admin or owner of the workspace that gave or received it)",
  description:
    "Reposting through the account stops at once: the receiving workspace's queued reposts through it are dropped (listed in its activity " +
    "with the reason), a repost already queued checks the grant again before it runs, and the evaluator no longer uses the account.",
  request: { params: GrantIdParams },
  responses: { 204: { description: "Withdrawn" }, ...problems(401, 403, 404, 422) },
});

/**
 * Either side's admin may end it: a grant's role is the caller's best over the workspace that gave it and the
 * one that received it (lib/http/scoped-resources.ts), so a member of neither gets 404 and one below admin on
 * both sides 403.
 */
export const access = workspaceRole("admin", resourceInPath("repost-grant"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  await db(c).transaction(async (tx) => {
    const [grant] = await tx.delete(repostGrants).where(eq(repostGrants.id, id)).returning();
    // Withdrawn by a concurrent request since the rule read it.
    if (!grant) throw notFound("grant");
    await dropQueuedAttempts(
      tx,
      and(eq(repostAttempts.targetAccountId, grant.targetAccountId), eq(repostAttempts.workspaceId, grant.sourceWorkspaceId))!,
      "the grant for the target account was withdrawn",
    );
    await audit(tx, { ...auditActor(c), workspaceId: grant.targetWorkspaceId, action: "repost_grant.delete", targetType: "repost_grant", targetId: id });
  });
  return c.body(null, 204);
};
