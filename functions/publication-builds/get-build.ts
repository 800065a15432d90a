import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";
import { Build } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/publication-builds/{id}",
  tags: ["publication-builds"],
  summary: "Get a build",
  request: { params: z.object({ id: IdParam.openapi({ description: "Publication build ID" }) }) },
  responses: { 200: jsonResponse(Build, "The build"), ...problems(401, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("GET /publication-builds/{id}", "a later issue");
};
