import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { PublicationIdParams, UpdatePublicationRequest } from "./requests";
import { PublicationResponse } from "./schemas";

export const route = createRoute({
  method: "put",
  path: "/publications/{id}",
  tags: ["publications"],
  summary: "Update a publication",
  description:
    "Changes the members given and keeps the others. A stale `expected_revision` answers 409 revision-conflict; a publication that is publishing or published answers 409 not-editable. Needs the editor role.",
  request: { params: PublicationIdParams, headers: IdempotencyKeyHeader, body: jsonBody(UpdatePublicationRequest) },
  responses: { 200: jsonResponse(PublicationResponse, "The publication at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("PUT /publications/{id}", "issue 3");
};
