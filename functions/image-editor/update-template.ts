import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";
import { ImageDocument } from "./image-document";
import { TemplateResponse } from "./schemas";

/** PATCH semantics: members given replace the stored ones, members left out stay. */
export const UpdateTemplateRequest = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    category: z.string().trim().min(1).max(100).optional(),
    document: ImageDocument.optional().openapi({ description: "The new template snapshot" }),
  })
  .refine((body) => body.name !== undefined || body.category !== undefined || body.document !== undefined, {
    message: "Give at least one of name, category, document",
  })
  .openapi("UpdateTemplateRequest");

export const route = createRoute({
  method: "patch",
  path: "/image-editor/templates/{id}",
  tags: ["image-editor"],
  summary: "Replace a workspace template's snapshot",
  description: "Built-in templates cannot be changed (403). Needs the editor role in the template's workspace.",
  request: { params: z.object({ id: IdParam.openapi({ description: "Template ID" }) }), body: jsonBody(UpdateTemplateRequest) },
  responses: { 200: jsonResponse(TemplateResponse, "The updated template"), ...problems(400, 401, 403, 404, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("PATCH /image-editor/templates/{id}", "issue 4");
};
