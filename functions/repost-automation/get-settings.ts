import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { SettingsResponse } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/repost-automation",
  tags: ["repost-automation"],
  summary: "Get workspace repost rules and available accounts",
  request: { query: z.object({ workspace_id: WorkspaceIdField }) },
  responses: { 200: jsonResponse(SettingsResponse, "Rules, grants and accounts"), ...problems(401, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /repost-automation", "a later issue");
};
