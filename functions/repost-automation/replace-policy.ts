import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { repostPolicies } from "../../db/schema";
import { audit } from "../../lib/audit";
import { assertRevision } from "../../lib/http/concurrency";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { checkPolicyAccounts, toPolicy } from "./present";
import { PolicyIdParams, ReplacePolicyRequest, RepostPolicyResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "put",
  path: "/repost-automation/policies/{id}",
  tags: ["repost-automation"],
  summary: "Replace a repost policy (admin or owner)",
  description:
    "Replaces name, enabled, accounts and rule. A stale `expected_revision` answers 409 revision-conflict and changes nothing. " +
    "Reposts already made stay; later stages follow the new rule.",
  request: { params: PolicyIdParams, body: jsonBody(ReplacePolicyRequest) },
  responses: { 200: jsonResponse(RepostPolicyResponse, "The policy at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("admin", resourceInPath("repost-policy"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const row = await db(c).transaction(async (tx) => {
    // Row lock: concurrent writers with the same revision queue here and all but one see a new revision.
    const current = await lockScopedResource(c, tx, "repost-policy");
    assertRevision(body.expected_revision, current.revision, "repost policy");
    await checkPolicyAccounts(tx, current.workspaceId, body);
    const [row] = await tx
      .update(repostPolicies)
      .set({
        name: body.name,
        enabled: body.enabled,
        rule: body.rule,
        sourceAccountIds: body.source_account_ids,
        targetAccountIds: body.target_account_ids,
        revision: sql`${repostPolicies.revision} + 1`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(repostPolicies.id, id), eq(repostPolicies.revision, body.expected_revision)))
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "repost_policy.update", targetType: "repost_policy", targetId: row.id });
    return row;
  });
  return c.json(withSchema(c, RepostPolicyResponse, toPolicy(row)), 200);
};
