import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { repostGrants } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { requireRole } from "../../lib/http/workspace-guard";
import { newId } from "../../lib/ids";
import { supportsRepost } from "../../lib/repost/accounts";
import { grantById, grantsView } from "./grant-view";
import { CreateGrantRequest, RepostGrantResponse } from "./schemas";
import { resourceInBody, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/repost-automation/grants",
  operationId: "createRepostGrant",
  tags: ["repost-automation"],
  summary: "Let another workspace repost through one of this workspace's accounts (admin or owner of the account's workspace)",
  description:
    "The caller must be an admin of the account's workspace and a member of `source_workspace_id` (else 404). " +
    "A grant that already exists answers 409 conflict.",
  request: { body: jsonBody(CreateGrantRequest) },
  responses: { 201: jsonResponse(RepostGrantResponse, "The grant"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

// An admin of the account's workspace gives the grant; the source workspace is checked in the handler.
export const access = workspaceRole("admin", resourceInBody("account", "target_account_id"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  const account = scopedResource(c, "account");
  const { id, workspaceId } = await db(c).transaction(async (tx) => {
    // The second workspace of the request, beside the rule's: naming one the caller cannot see must not reveal whether it exists.
    await requireRole(tx, user.id, body.source_workspace_id, "viewer", "workspace");
    if (account.workspaceId === body.source_workspace_id) {
      throw new ApiError("validation-error", {
        detail: "The account already belongs to that workspace; grants are for other workspaces.",
        errors: [{ location: "body.source_workspace_id", message: "Same workspace as the account", value: body.source_workspace_id }],
      });
    }
    if (!supportsRepost(account.platform)) {
      throw new ApiError("validation-error", {
        detail: `A ${account.platform} account cannot repost.`,
        errors: [{ location: "body.target_account_id", message: "Cannot repost", value: body.target_account_id }],
      });
    }
    const [row] = await tx
      .insert(repostGrants)
      .values({
        id: newId("rpg"),
        sourceWorkspaceId: body.source_workspace_id,
        targetWorkspaceId: account.workspaceId,
        targetAccountId: body.target_account_id,
        createdBy: user.id,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("conflict", { detail: "That workspace already has a grant for this account." });
    await audit(tx, { ...auditActor(c), workspaceId: account.workspaceId, action: "repost_grant.create", targetType: "repost_grant", targetId: row.id });
    return { id: row.id, workspaceId: account.workspaceId };
  });
  const [grant] = await grantsView(db(c), workspaceId, grantById(id), 1);
  return c.json(withSchema(c, RepostGrantResponse, grant), 201);
};
