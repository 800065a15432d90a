import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { ListTemplatesOutputBody } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/image-editor/templates",
  tags: ["image-editor"],
  summary: "List built-in and workspace templates",
  request: { query: z.object({ workspace_id: WorkspaceIdField }) },
  responses: { 200: jsonResponse(ListTemplatesOutputBody, "Built-in templates and the workspace's own"), ...problems(401, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /image-editor/templates", "issue 4");
};
