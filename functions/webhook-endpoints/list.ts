import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { webhookEndpoints } from "../../db/schema";
import { inQuery, workspaceRole } from "../../lib/http/access";
import { db, type AppEnv } from "../../lib/http/context";
import { keyset } from "../../lib/http/keyset";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { presentEndpoint } from "./present";
import { WebhookEndpoint } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/webhook-endpoints",
  operationId: "listWebhookEndpoints",
  tags: ["webhook-endpoints"],
  summary: "The workspace's webhook endpoints, oldest first",
  description:
    "Needs the admin role. Never the secrets. A disabled endpoint shows when and why (`disabled_at`, `disabled_reason`). " +
    'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(20, 100), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(WebhookEndpoint), "The endpoints"), ...problems(401, 403, 404, 422, 429) },
});

export const access = workspaceRole("admin", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const page = keyset(
    c,
    [
      { column: webhookEndpoints.createdAt, kind: "date" },
      { column: webhookEndpoints.id, kind: "string" },
    ],
    "asc",
    query,
  );
  // Served by webhook_endpoints_workspace_idx (workspace_id, created_at, id).
  const rows = await db(c)
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, query.workspace_id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  return c.json(withSchemaEach(c, WebhookEndpoint, page.answer(rows, (r) => [r.createdAt, r.id]).map(presentEndpoint)), 200);
};
