import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { repostPolicies } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { checkPolicyAccounts, toPolicy } from "./present";
import { CreatePolicyRequest, RepostPolicyResponse } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/repost-automation/policies",
  operationId: "createRepostPolicy",
  tags: ["repost-automation"],
  summary: "Create a repost policy (admin or owner)",
  description:
    "Source accounts must be the workspace's own; target accounts its own or another workspace's granted to it (422 naming each " +
    "unusable id). Starts at revision 1. Accepts an Idempotency-Key so a retried request never creates a second policy.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreatePolicyRequest) },
  responses: { 201: jsonResponse(RepostPolicyResponse, "The new policy"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("admin", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  return idempotent(c, { workspaceId: body.workspace_id, operation: "repost_policies.create", request: body }, async (tx) => {
    await checkPolicyAccounts(tx, body.workspace_id, body);
    const [row] = await tx
      .insert(repostPolicies)
      .values({
        id: newId("rpp"),
        workspaceId: body.workspace_id,
        name: body.name,
        enabled: body.enabled,
        rule: body.rule,
        sourceAccountIds: body.source_account_ids,
        targetAccountIds: body.target_account_ids,
        createdBy: user.id,
      })
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "repost_policy.create", targetType: "repost_policy", targetId: row.id });
    return { status: 201, body: withSchema(c, RepostPolicyResponse, toPolicy(row)) };
  });
};
