import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { messageCapableAccounts } from "../../lib/accounts/messages";
import { audit } from "../../lib/audit";
import { afterCommit, auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { enqueueJob } from "../../lib/jobs/outbox";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { RefreshCapabilityOutcome } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const RefreshMessagesRequest = z.object({ workspace_id: WorkspaceIdField }).openapi("RefreshMessagesRequest");

export const route = createRoute({
  method: "post",
  path: "/messages/refresh",
  operationId: "refreshMessages",
  tags: ["accounts"],
  summary: "Queue message collection for a workspace",
  description:
    "Needs the editor role, like analytics refresh. Queues one collection job per account that can collect messages " +
    "(Bluesky and Mastodon accounts that are active with messages enabled); a queue consumer reads their mentions and " +
    "replies, readable with GET /messages. `status: unavailable` with `queued: 0` and an `error_code` when none can.",
  request: { body: jsonBody(RefreshMessagesRequest) },
  responses: { 202: jsonResponse(RefreshCapabilityOutcome, "Collection queued, or unavailable"), ...problems(400, 401, 403, 404, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  const jobIds = await db(c).transaction(async (tx) => {
    const accounts = await messageCapableAccounts(tx, workspace_id);
    const ids: string[] = [];
    for (const account of accounts)
      ids.push(await enqueueJob(tx, "messages.refresh", workspace_id, { account_id: account.id }, { requestId: c.get("requestId") }));
    if (ids.length > 0)
      await audit(tx, { ...auditActor(c), workspaceId: workspace_id, action: "messages.refresh", targetType: "workspace", targetId: workspace_id });
    return ids;
  });
  dispatchAfterCommit(afterCommit(c), jobIds);
  const outcome =
    jobIds.length > 0
      ? { status: "queued" as const, queued: jobIds.length, error_code: null }
      : { status: "unavailable" as const, queued: 0, error_code: "no_message_capable_accounts" };
  return c.json(withSchema(c, RefreshCapabilityOutcome, outcome), 202);
};
