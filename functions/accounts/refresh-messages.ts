import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { RefreshCapabilityOutcome } from "./schemas";

export const RefreshMessagesRequest = z.object({ workspace_id: WorkspaceIdField }).openapi("RefreshMessagesRequest");

export const route = createRoute({
  method: "post",
  path: "/messages/refresh",
  tags: ["accounts"],
  summary: "Queue message collection for a workspace",
  description: "Needs the editor role, like analytics refresh.",
  request: { body: jsonBody(RefreshMessagesRequest) },
  responses: { 202: jsonResponse(RefreshCapabilityOutcome, "Collection queued, or unavailable"), ...problems(400, 401, 403, 404, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  await requireRole(db(c), currentUser(c).id, workspace_id, "editor");
  throw notImplemented("POST /messages/refresh", "issue 3");
};
