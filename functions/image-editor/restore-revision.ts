import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { IdParam, RevisionField } from "../../lib/schemas/common";
import { DesignResponse } from "./schemas";

export const RestoreDesignRevisionRequest = z
  .object({ expected_revision: RevisionField.openapi({ description: "The design's current revision, as loaded" }) })
  .openapi("RestoreDesignRevisionRequest");

export const route = createRoute({
  method: "post",
  path: "/image-editor/designs/{id}/revisions/{revision_id}/restore",
  tags: ["image-editor"],
  summary: "Restore a design revision as a new head revision",
  description: "The chosen revision's document becomes a new revision; history is kept. Needs the editor role.",
  request: {
    params: z.object({ id: IdParam.openapi({ description: "Design ID" }), revision_id: IdParam.openapi({ description: "Revision ID" }) }),
    body: jsonBody(RestoreDesignRevisionRequest),
  },
  responses: { 200: jsonResponse(DesignResponse, "The design at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("POST /image-editor/designs/{id}/revisions/{revision_id}/restore", "issue 4");
};
