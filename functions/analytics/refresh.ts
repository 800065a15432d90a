import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { analyticsCollectionRuns } from "../../db/schema";
import { earliestRetry, planRefresh, type DeferredAccount } from "../../lib/analytics/refresh-plan";
import { audit } from "../../lib/audit";
import { inBody, workspaceRole } from "../../lib/http/access";
import { afterCommit, auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { enqueueJob } from "../../lib/jobs/outbox";

export const RefreshAnalyticsRequest = z.object({ workspace_id: z.string().min(1).max(100) }).openapi("RefreshAnalyticsRequest");

const DeferredAccountSchema = z
  .object({
    account_id: z.string(),
    platform: z.string(),
    failure_code: z.string().nullable().openapi({ description: "Why its last collection failed (as in `GET /analytics` coverage)" }),
    retry_at: z.string().openapi({ format: "date-time", description: "Not collected before this: Herald's backoff or the platform's Retry-After" }),
  })
  .openapi("DeferredAnalyticsAccount");

export const RefreshAnalyticsOutputBody = responseObject("RefreshAnalyticsOutputBody", {
  message: z.string(),
  queued: z.number().int().openapi({ description: "Accounts whose analytics collection was queued" }),
  deferred: z.array(DeferredAccountSchema).openapi({ description: "Accounts not queued because they are backing off after a failure" }),
});

export const route = createRoute({
  method: "post",
  path: "/analytics/refresh",
  operationId: "refreshAnalytics",
  tags: ["analytics"],
  summary: "Queue analytics collection for a workspace",
  description:
    "Records a collection run and queues one collection job per active Mastodon or Bluesky account (webhooks offer no analytics); the consumer collects each account and the last one completes the run. Provider failures show in `GET /analytics` coverage. An account backing off after a failure (Herald's exponential backoff, or the platform's `Retry-After`) is not queued before its `retry_at`; it is listed in `deferred`. When every collectable account is backing off nothing is queued: 429 `rate-limited` with `Retry-After` (seconds until the first may be tried) and the same `deferred` list. Needs the editor role.",
  request: { body: jsonBody(RefreshAnalyticsRequest) },
  responses: {
    202: jsonResponse(RefreshAnalyticsOutputBody, "Collection queued (accounts backing off are listed in `deferred`)"),
    ...problems(400, 401, 403, 404, 422),
    429: {
      ...problems(429)[429],
      description: "Every collectable account is backing off after a failure (Retry-After says when the first may be tried), or too many requests this minute",
    },
  },
});

export const access = workspaceRole("editor", inBody());

const deferredJson = (d: DeferredAccount[]) =>
  d.map((x) => ({ account_id: x.accountId, platform: x.platform, failure_code: x.failureCode, retry_at: x.retryAt.toISOString() }));

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  const user = currentUser(c);
  const now = new Date();
  const { jobIds, queued, deferred } = await db(c).transaction(async (tx) => {
    const plan = await planRefresh(tx, workspace_id, now);
    const retryAt = earliestRetry(plan.deferred);
    if (plan.eligible.length === 0 && retryAt) {
      const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
      throw new ApiError("rate-limited", {
        detail: `Every account of this workspace that offers analytics is backing off after a failure; nothing was queued. Try again after ${retryAt.toISOString()} (in ${seconds} s).`,
        headers: { "retry-after": String(seconds) },
        extra: { retry_at: retryAt.toISOString(), deferred: deferredJson(plan.deferred) },
      });
    }
    const runId = newId("arun");
    // One job per account (a run for no account gets one job that only completes it).
    const jobIds: string[] = [];
    for (const a of plan.eligible.length ? plan.eligible : [null])
      jobIds.push(
        await enqueueJob(tx, "analytics.refresh", workspace_id, a ? { run_id: runId, account_id: a.id } : { run_id: runId }, { requestId: c.get("requestId") }),
      );
    await tx
      .insert(analyticsCollectionRuns)
      .values({ id: runId, workspaceId: workspace_id, jobId: jobIds[0], status: "queued", accountsQueued: plan.eligible.length, requestedBy: user.id });
    await audit(tx, { ...auditActor(c), workspaceId: workspace_id, action: "analytics.refresh", targetType: "analytics_run", targetId: runId });
    return { jobIds, queued: plan.eligible.length, deferred: plan.deferred };
  });
  dispatchAfterCommit(afterCommit(c), jobIds);
  const first = earliestRetry(deferred);
  const message =
    queued === 0
      ? "No account of this workspace offers analytics to collect (connect a Mastodon or Bluesky account); nothing was queued."
      : `Collection queued for ${plural(queued, "account")}.` +
        (first
          ? ` ${plural(deferred.length, "account")} backing off after a failure ${deferred.length === 1 ? "is" : "are"} not queued; the first may be tried after ${first.toISOString()}.`
          : "");
  return c.json(withSchema(c, RefreshAnalyticsOutputBody, { message, queued, deferred: deferredJson(deferred) }), 202);
};
