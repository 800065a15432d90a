import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, inArray, not, sql } from "drizzle-orm";
import { renditions, repostAttempts, repostPolicies } from "../../db/schema";
import { dropQueuedAttempts } from "../../lib/repost/withdrawals";
import { audit } from "../../lib/audit";
import { assertRevision } from "../../lib/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { checkPolicyAccounts, type PolicyRow, toPolicy } from "./present";
import type { Queryable } from "../../lib/db/client";
import { PolicyIdParams, ReplacePolicyRequest, RepostPolicyResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "put",
  path: "/repost-automation/policies/{id}",
  operationId: "replaceRepostPolicy",
  tags: ["repost-automation"],
  summary: "Replace a repost policy (admin or owner)",
  description:
    "Replaces name, enabled, accounts and rule. A stale `expected_revision` answers 409 revision-conflict and changes nothing. " +
    "Reposts already made stay; later stages follow the new rule. Disabling it drops its queued reposts at once, and removing a " +
    "source or target account drops those through or of it; each dropped one is listed in the activity with the reason.",
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
    await dropWithdrawn(tx, row);
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "repost_policy.update", targetType: "repost_policy", targetId: row.id });
    return row;
  });
  return c.json(withSchema(c, RepostPolicyResponse, toPolicy(row)), 200);
};

/** What the new revision no longer allows is not carried out: queued attempts of a disabled policy, or of removed accounts. */
async function dropWithdrawn(tx: Queryable, row: PolicyRow): Promise<void> {
  const ofPolicy = eq(repostAttempts.policyId, row.id);
  if (!row.enabled) {
    await dropQueuedAttempts(tx, ofPolicy, "the policy was disabled");
    return;
  }
  await dropQueuedAttempts(
    tx,
    and(ofPolicy, not(inArray(repostAttempts.targetAccountId, row.targetAccountIds)))!,
    "the target account was removed from the policy",
  );
  const fromOthers = tx
    .select({ id: renditions.id })
    .from(renditions)
    .where(and(eq(renditions.workspaceId, row.workspaceId), not(inArray(renditions.socialAccountId, row.sourceAccountIds))));
  await dropQueuedAttempts(tx, and(ofPolicy, inArray(repostAttempts.renditionId, fromOthers))!, "the post's account was removed from the policy's sources");
}
