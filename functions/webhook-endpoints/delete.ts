import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../../db/schema";
import { audit } from "../../lib/audit";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { EndpointIdParams } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/webhook-endpoints/{id}",
  operationId: "deleteWebhookEndpoint",
  tags: ["webhook-endpoints"],
  summary: "Delete a webhook endpoint",
  description:
    "Needs the admin role. Nothing more is sent to it, retries included; its delivery log goes with it. " +
    "A disabled endpoint can also be enabled again without deleting it: PATCH with `enabled: true`.",
  request: { params: EndpointIdParams },
  responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 422, 429) },
});

export const access = workspaceRole("admin", resourceInPath("webhook-endpoint"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  await db(c).transaction(async (tx) => {
    // Its deliveries go with it (on delete cascade): a job still queued for one finds nothing to send.
    const [row] = await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ workspaceId: webhookEndpoints.workspaceId });
    if (!row) throw notFound("webhook endpoint"); // deleted by a concurrent request since the rule read it
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "webhook_endpoint.delete", targetType: "webhook_endpoint", targetId: id });
  });
  return c.body(null, 204);
};
