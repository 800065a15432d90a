import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { DiscoveryResult } from "./schemas";

export const DiscoverOpportunitiesRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    platforms: z
      .array(z.string().min(1).max(50))
      .max(20)
      .optional()
      .openapi({ description: "Platforms to suggest treatments for; all connected ones when left out" }),
  })
  .openapi("DiscoverOpportunitiesRequest");

export const route = createRoute({
  method: "post",
  path: "/publication-opportunities/discover",
  tags: ["publication-builds"],
  summary: "Discover current content opportunities",
  description: "Returns idea cards with angles and platform treatments. Never drafts, schedules or publishes anything. Needs the editor role.",
  request: { body: jsonBody(DiscoverOpportunitiesRequest) },
  responses: {
    200: jsonResponse(DiscoveryResult, "Idea cards"),
    ...problems(400, 401, 403, 404, 413, 422, 429, 501, 502, 503),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  // Discovery spends AI budget on content planning: the editor role, like composing.
  await requireRole(db(c), currentUser(c).id, workspace_id, "editor");
  throw notImplemented("POST /publication-opportunities/discover", "a later issue");
};
