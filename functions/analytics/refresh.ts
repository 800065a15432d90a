import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { analyticsCollectionRuns } from "../../db/schema";
import { audit } from "../../lib/audit";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { requireRole } from "../../lib/http/workspace-guard";
import { newId } from "../../lib/ids";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { enqueueJob } from "../../lib/jobs/outbox";
import { countCollectableAccounts } from "../../lib/analytics/accounts";

export const RefreshAnalyticsRequest = z.object({ workspace_id: z.string().min(1).max(100) }).openapi("RefreshAnalyticsRequest");

export const RefreshAnalyticsOutputBody = responseObject("RefreshAnalyticsOutputBody", {
  message: z.string(),
  queued: z.number().int().openapi({ description: "Accounts whose analytics collection was queued" }),
});

export const route = createRoute({
  method: "post",
  path: "/analytics/refresh",
  tags: ["analytics"],
  summary: "Queue analytics collection for a workspace",
  description: "Records a collection run and queues it; a queue consumer collects and completes it.",
  request: { body: jsonBody(RefreshAnalyticsRequest) },
  responses: { 202: jsonResponse(RefreshAnalyticsOutputBody, "Collection queued"), ...problems(400, 401, 403, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  const user = currentUser(c);
  const { jobId, accounts } = await db(c).transaction(async (tx) => {
    await requireRole(tx, user.id, workspace_id, "editor");
    const accounts = await countCollectableAccounts(tx, workspace_id);
    const runId = newId("arun");
    const jobId = await enqueueJob(tx, "analytics.refresh", workspace_id, { run_id: runId });
    await tx.insert(analyticsCollectionRuns).values({ id: runId, workspaceId: workspace_id, jobId, status: "queued", accountsQueued: accounts, requestedBy: user.id });
    await audit(tx, { actorUserId: user.id, workspaceId: workspace_id, action: "analytics.refresh", targetType: "analytics_run", targetId: runId });
    return { jobId, accounts };
  });
  dispatchAfterCommit(c, [jobId]);
  const message =
    accounts === 0
      ? "Collection run queued. Collecting measurements from providers is not built yet, so no account was queued and the run will record none."
      : `Collection queued for ${accounts} account${accounts === 1 ? "" : "s"}.`;
  return c.json(withSchema(c, RefreshAnalyticsOutputBody, { message, queued: accounts }), 202);
};
