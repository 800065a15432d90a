import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { webhookEndpoints, workspaces } from "../../db/schema";
import { audit } from "../../lib/audit";
import { inBody, workspaceRole } from "../../lib/http/access";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { checkOutboundUrl } from "../../lib/net/outbound-url";
import { allowPrivateUrls } from "../../lib/accounts/account-context";
import { encryptJson } from "../../lib/secrets";
import { newWebhookSecret } from "../../lib/standard-webhooks";
import { presentEndpoint } from "./present";
import { CreatedWebhookEndpoint, CreateWebhookEndpointRequest } from "./schemas";

/** Endpoints a workspace may have: each event is sent to every subscribed one, so this bounds an event's fan-out. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;

export const route = createRoute({
  method: "post",
  path: "/webhook-endpoints",
  operationId: "createWebhookEndpoint",
  tags: ["webhook-endpoints"],
  summary: "Register an endpoint for outbound events",
  description:
    "Needs the admin role. Herald POSTs each subscribed event to `url` as Standard Webhooks (the event id is the " +
    "`webhook-id`; `webhook-signature` is keyed by the secret in this answer, which is shown only here). URLs that point " +
    "to loopback or private addresses are refused unless the instance sets ALLOW_PRIVATE_URLS. At most " +
    `${MAX_ENDPOINTS_PER_WORKSPACE} endpoints a workspace (422 beyond).`,
  request: { body: jsonBody(CreateWebhookEndpointRequest) },
  responses: { 201: jsonResponse(CreatedWebhookEndpoint, "The endpoint, with its secret"), ...problems(400, 401, 403, 404, 413, 422, 429) },
});

export const access = workspaceRole("admin", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const verdict = checkOutboundUrl(body.url, allowPrivateUrls(c.env));
  if (!verdict.ok) {
    throw new ApiError("validation-error", {
      detail: `body.url ${verdict.reason}.`,
      errors: [{ location: "body.url", message: `The URL ${verdict.reason}` }],
    });
  }
  const secret = newWebhookSecret();
  const secretCiphertext = await encryptJson(c.env.INSTANCE_SECRET_KEY ?? "", { secret });
  const row = await db(c).transaction(async (tx) => {
    // The workspace's row held while counting, so two creations at once cannot both pass the cap.
    await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, body.workspace_id)).for("update");
    const [{ count }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.workspaceId, body.workspace_id));
    if (count >= MAX_ENDPOINTS_PER_WORKSPACE) {
      throw new ApiError("validation-error", {
        detail: `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first.`,
        errors: [{ location: "body.workspace_id", message: `At most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints a workspace` }],
      });
    }
    const [created] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newId("whe"),
        workspaceId: body.workspace_id,
        url: verdict.url!.toString(),
        events: body.events,
        secretCiphertext,
        createdBy: currentUser(c).id,
      })
      .returning();
    await audit(tx, {
      ...auditActor(c),
      workspaceId: body.workspace_id,
      action: "webhook_endpoint.create",
      targetType: "webhook_endpoint",
      targetId: created.id,
    });
    return created;
  });
  return c.json(withSchema(c, CreatedWebhookEndpoint, { ...presentEndpoint(row), secret }), 201);
};
