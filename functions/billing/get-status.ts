import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { BillingStatusResponse } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/billing/status",
  tags: ["billing"],
  summary: "Get billing status",
  description: "For the workspace's organization, the given organization, or the caller's own when neither is given.",
  request: {
    query: z.object({
      workspace_id: WorkspaceIdField.optional(),
      organization_id: IdParam.optional().openapi({ description: "Organization ID" }),
    }),
  },
  responses: { 200: jsonResponse(BillingStatusResponse, "Plan, limits, usage and costs"), ...problems(401, 403, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  if (workspace_id !== undefined) await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /billing/status", "a later issue");
};
