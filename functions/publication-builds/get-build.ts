import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { BuildIdParams } from "./requests";
import { toBuild } from "./present";
import { Build } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/publication-builds/{id}",
  operationId: "getBuild",
  tags: ["publication-builds"],
  summary: "Get a build",
  description: "`state` goes `queued` → `running` → `completed` (with `result`) or `failed` (with `error_code`, `error_message`, and `phase` saying where).",
  request: { params: BuildIdParams },
  responses: { 200: jsonResponse(Build, "The build"), ...problems(401, 403, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("build"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  return c.json(withSchema(c, Build, toBuild(scopedResource(c, "build"))), 200);
};
