import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { analyticsCollectionRuns } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { enqueueJob } from "../../lib/jobs/outbox";
import { collectableAccounts } from "../../lib/analytics/accounts";
import { inBody, workspaceRole } from "../../lib/http/access";

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
  description:
    "Records a collection run and queues one collection job per active Mastodon or Bluesky account (webhooks offer no analytics); the consumer collects each account and the last one completes the run. Provider failures show in `GET /analytics` coverage. Needs the editor role.",
  request: { body: jsonBody(RefreshAnalyticsRequest) },
  responses: { 202: jsonResponse(RefreshAnalyticsOutputBody, "Collection queued"), ...problems(400, 401, 403, 404, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  const user = currentUser(c);
  const { jobIds, accounts } = await db(c).transaction(async (tx) => {
    const collectable = await collectableAccounts(tx, workspace_id);
    const runId = newId("arun");
    // One job per account (a run for no account gets one job that only completes it).
    const jobIds: string[] = [];
    for (const a of collectable.length ? collectable : [null])
      jobIds.push(
        await enqueueJob(tx, "analytics.refresh", workspace_id, a ? { run_id: runId, account_id: a.id } : { run_id: runId }, { requestId: c.get("requestId") }),
      );
    await tx
      .insert(analyticsCollectionRuns)
      .values({ id: runId, workspaceId: workspace_id, jobId: jobIds[0], status: "queued", accountsQueued: collectable.length, requestedBy: user.id });
    await audit(tx, { ...auditActor(c), workspaceId: workspace_id, action: "analytics.refresh", targetType: "analytics_run", targetId: runId });
    return { jobIds, accounts: collectable.length };
  });
  dispatchAfterCommit(c, jobIds);
  const message =
    accounts === 0
      ? "No account of this workspace offers analytics to collect (connect a Mastodon or Bluesky account); nothing was queued."
      : `Collection queued for ${accounts} account${accounts === 1 ? "" : "s"}.`;
  return c.json(withSchema(c, RefreshAnalyticsOutputBody, { message, queued: accounts }), 202);
};
