import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { PublicationIdParams, PublishNowRequest } from "./requests";
import { ActionOutputBody } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/publications/{id}/publish-now",
  tags: ["publications"],
  summary: "Publish a publication now",
  description:
    "Queues delivery of every rendition (response carries `job_id`); follow progress with GET /publications/{id}. Needs the editor role.",
  request: { params: PublicationIdParams, headers: IdempotencyKeyHeader, body: jsonBody(PublishNowRequest) },
  responses: { 202: jsonResponse(ActionOutputBody, "Publishing queued"), ...problems(400, 401, 403, 404, 409, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("POST /publications/{id}/publish-now", "issue 3");
};
