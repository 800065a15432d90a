import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";
import { toProject, VideoProjectResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/video-projects/{id}",
  operationId: "getVideoProject",
  tags: ["video-projects"],
  summary: "A video project at its head revision (viewer or higher)",
  description: "One video project at its head revision: its document, its sync status and what needs attention. 404 for a project of another workspace.",
  request: { params: z.object({ id: IdParam.openapi({ description: "Video project ID" }) }) },
  responses: { 200: jsonResponse(VideoProjectResponse, "The project"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("video-project"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  return c.json(toProject(c, scopedResource(c, "video-project")), 200);
};
