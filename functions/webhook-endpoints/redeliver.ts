import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, inArray, sql } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { afterCommit, db, type AppEnv } from "../../lib/http/context";
import { lockScopedResource } from "../../lib/http/enforce-access";
import { ApiError, notFound } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { dispatchAfterCommit } from "../../lib/jobs/dispatch";
import { enqueueJob } from "../../lib/jobs/outbox";
import { deliveryWithType, presentDeliveries } from "./deliveries";
import { DeliveryParams, WebhookDelivery } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver",
  operationId: "redeliverWebhook",
  tags: ["webhook-endpoints"],
  summary: "Send a delivery again",
  description:
    "Needs the admin role. Starts a new round of attempts (up to 8, retried as CONTRACT §4) for a delivery that has ended " +
    "(`delivered` or `failed`), with the same body and the same `webhook-id` (the event id), so a receiver that kept it " +
    "recognises it. 409 while the delivery is still in progress, or when the endpoint is disabled.",
  request: { params: DeliveryParams },
  responses: { 202: jsonResponse(WebhookDelivery, "The delivery, pending again"), ...problems(401, 403, 404, 409, 422, 429) },
});

export const access = workspaceRole("admin", resourceInPath("webhook-endpoint"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { delivery_id } = c.req.valid("param");
  const { jobId, delivery } = await db(c).transaction(async (tx) => {
    const endpoint = await lockScopedResource(c, tx, "webhook-endpoint");
    if (endpoint.disabledAt) {
      throw new ApiError("conflict", { detail: "This endpoint is disabled and receives nothing; enable it again first (PATCH with enabled: true)." });
    }
    const mine = and(eq(webhookDeliveries.id, delivery_id), eq(webhookDeliveries.endpointId, endpoint.id));
    const [reset] = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", roundAttempts: 0, nextAttemptAt: sql`now()`, leaseUntil: null, updatedAt: sql`now()` })
      .where(and(mine, inArray(webhookDeliveries.status, ["delivered", "failed"])))
      .returning({ eventId: webhookDeliveries.eventId });
    if (!reset) {
      const [exists] = await tx.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(mine);
      if (!exists) throw notFound("delivery");
      throw new ApiError("conflict", { detail: `This delivery is still ${exists.status}; it can be sent again once it has ended.` });
    }
    const jobId = await enqueueJob(tx, "event.deliver", endpoint.workspaceId, { event_id: reset.eventId, delivery_id }, { requestId: c.get("requestId") });
    const rows = await deliveryWithType(tx).where(mine);
    return { jobId, delivery: (await presentDeliveries(tx, rows))[0] };
  });
  dispatchAfterCommit(afterCommit(c), [jobId]);
  return c.json(withSchema(c, WebhookDelivery, delivery), 202);
};
