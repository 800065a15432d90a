import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { repostAttempts, repostPolicies } from "../../db/schema";
import { dropQueuedAttempts } from "../../lib/repost/withdrawals";
import { audit } from "../../lib/audit";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { problems } from "../../lib/http/problem-schema";
import { notFound } from "../../lib/http/errors";
import { PolicyIdParams } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "delete",
  path: "/repost-automation/policies/{id}",
  operationId: "deleteRepostPolicy",
  tags: ["repost-automation"],
  summary: "Delete a repost policy (admin or owner)",
  description:
    "No further reposts are made under it: its queued reposts are dropped at once and listed in the activity with the reason. " +
    "Reposts already made stay on the platforms. Its activity remains listed.",
  request: { params: PolicyIdParams },
  responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 422) },
});

export const access = workspaceRole("admin", resourceInPath("repost-policy"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  await db(c).transaction(async (tx) => {
    // Recorded before the delete, which takes the attempts with the policy.
    await dropQueuedAttempts(tx, eq(repostAttempts.policyId, id), "the policy was deleted");
    const [row] = await tx.delete(repostPolicies).where(eq(repostPolicies.id, id)).returning({ workspaceId: repostPolicies.workspaceId });
    // Deleted by a concurrent request since the rule read it.
    if (!row) throw notFound("repost policy");
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "repost_policy.delete", targetType: "repost_policy", targetId: id });
  });
  return c.body(null, 204);
};
