import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { webhookEndpoints } from "../../db/schema";
import { audit } from "../../lib/audit";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { lockScopedResource } from "../../lib/http/enforce-access";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { checkOutboundUrl } from "../../lib/net/outbound-url";
import { allowPrivateUrls } from "../../lib/accounts/account-context";
import { presentEndpoint } from "./present";
import { EndpointIdParams, UpdateWebhookEndpointRequest, WebhookEndpoint } from "./schemas";

/** Why an endpoint an administrator disabled receives nothing. */
const DISABLED_BY_ADMIN = "Disabled by an administrator of the workspace.";

export const route = createRoute({
  method: "patch",
  path: "/webhook-endpoints/{id}",
  operationId: "updateWebhookEndpoint",
  tags: ["webhook-endpoints"],
  summary: "Change a webhook endpoint, or enable it again",
  description:
    "Needs the admin role. Changes the URL (the same outbound URL rules as at creation) or the event types, and " +
    "`enabled: true` enables an endpoint Herald disabled after its deliveries kept failing (its count of failures " +
    "starts over; deliveries that ended `failed` meanwhile can be sent again with redeliver). `enabled: false` disables it. " +
    "The secret is kept.",
  request: { params: EndpointIdParams, body: jsonBody(UpdateWebhookEndpointRequest) },
  responses: { 200: jsonResponse(WebhookEndpoint, "The endpoint"), ...problems(400, 401, 403, 404, 413, 422, 429) },
});

export const access = workspaceRole("admin", resourceInPath("webhook-endpoint"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  let url: string | undefined;
  if (body.url !== undefined) {
    const verdict = checkOutboundUrl(body.url, allowPrivateUrls(c.env));
    if (!verdict.ok) {
      throw new ApiError("validation-error", {
        detail: `body.url ${verdict.reason}.`,
        errors: [{ location: "body.url", message: `The URL ${verdict.reason}` }],
      });
    }
    url = verdict.url!.toString();
  }
  const row = await db(c).transaction(async (tx) => {
    const endpoint = await lockScopedResource(c, tx, "webhook-endpoint");
    const enabling = body.enabled === true ? { disabledAt: null, disabledReason: null, consecutiveFailures: 0 } : {};
    const disabling = body.enabled === false && !endpoint.disabledAt ? { disabledAt: sql`now()`, disabledReason: DISABLED_BY_ADMIN } : {};
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({ ...(url !== undefined ? { url } : {}), ...(body.events ? { events: body.events } : {}), ...enabling, ...disabling })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning();
    await audit(tx, {
      ...auditActor(c),
      workspaceId: endpoint.workspaceId,
      action: "webhook_endpoint.update",
      targetType: "webhook_endpoint",
      targetId: endpoint.id,
    });
    return updated;
  });
  return c.json(withSchema(c, WebhookEndpoint, presentEndpoint(row)), 200);
};
