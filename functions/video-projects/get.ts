import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { videoProjects } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { IdParam } from "../../lib/schemas/common";
import { toProject, VideoProjectResponse } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/video-projects/{id}",
  tags: ["video-projects"],
  summary: "A video project at its head revision (viewer or higher)",
  request: { params: z.object({ id: IdParam.openapi({ description: "Video project ID" }) }) },
  responses: { 200: jsonResponse(VideoProjectResponse, "The project"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const [row] = await db(c).select().from(videoProjects).where(eq(videoProjects.id, id));
  if (!row) throw notFound("video project");
  await requireRole(db(c), currentUser(c).id, row.workspaceId, "viewer", "video project");
  return c.json(toProject(c, row), 200);
};
