import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { repostPolicies } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { problems } from "../../lib/http/problem-schema";
import { loadPolicyFor } from "./present";
import { PolicyIdParams } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/repost-automation/policies/{id}",
  tags: ["repost-automation"],
  summary: "Delete a repost policy (admin or owner)",
  description: "No further reposts are made under it; reposts already made stay on the platforms. Its activity remains listed.",
  request: { params: PolicyIdParams },
  responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const user = currentUser(c);
  await db(c).transaction(async (tx) => {
    const row = await loadPolicyFor(tx, user.id, id);
    await tx.delete(repostPolicies).where(eq(repostPolicies.id, id));
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "repost_policy.delete", targetType: "repost_policy", targetId: id });
  });
  return c.body(null, 204);
};
