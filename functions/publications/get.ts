import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { publicBaseUrl } from "../../lib/env";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { publicationResponses } from "../../lib/publishing/respond";
import { PublicationIdParams } from "./requests";
import { PublicationResponse } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/publications/{id}",
  operationId: "getPublication",
  tags: ["publications"],
  summary: "Get a publication with its renditions and their delivery state",
  description:
    "One publication of a workspace the caller belongs to: its content, schedule and revision, and per destination its rendition (the segments as they will be posted) with the delivery state, error and recovery action. 404 for a publication of another workspace.",
  request: { params: PublicationIdParams },
  responses: { 200: jsonResponse(PublicationResponse, "The publication"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("publication"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const row = scopedResource(c, "publication");
  const [body] = await publicationResponses(db(c), publicBaseUrl(c.env, c.req.url), [row]);
  return c.json(withSchema(c, PublicationResponse, body), 200);
};
