import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { db, type AppEnv } from "../../lib/http/context";
import { keyset } from "../../lib/http/keyset";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { deliveryWithType, presentDeliveries } from "./deliveries";
import { WebhookDelivery, EndpointIdParams } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/webhook-endpoints/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["webhook-endpoints"],
  summary: "An endpoint's delivery log, newest first",
  description:
    "Needs the admin role. Each delivery of an event to this endpoint: its status, attempts (each with the endpoint's status " +
    "code, or an error code when there was no answer) and times. Retries follow CONTRACT §4: 408, 429, 5xx and network " +
    'failures, the first three attempts within 90 s, at most 8 a round. A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { params: EndpointIdParams, query: z.object({ limit: limitParam(20, 100), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(WebhookDelivery), "The deliveries"), ...problems(401, 403, 404, 422, 429) },
});

export const access = workspaceRole("admin", resourceInPath("webhook-endpoint"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const query = c.req.valid("query");
  const database = db(c);
  const page = keyset(
    c,
    [
      { column: webhookDeliveries.createdAt, kind: "date" },
      { column: webhookDeliveries.id, kind: "string" },
    ],
    "desc",
    query,
  );
  // Served by webhook_deliveries_endpoint_idx (endpoint_id, created_at desc, id desc).
  const rows = await deliveryWithType(database)
    .where(and(eq(webhookDeliveries.endpointId, id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const shown = page.answer(rows, (r) => [r.delivery.createdAt, r.delivery.id]);
  return c.json(withSchemaEach(c, WebhookDelivery, await presentDeliveries(database, shown)), 200);
};
