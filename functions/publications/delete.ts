import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { BooleanQuery } from "../../lib/schemas/common";
import { PublicationIdParams } from "./requests";
import { ActionOutputBody } from "./schemas";

export const DeletePublicationQuery = z.object({
  confirm: BooleanQuery.optional().openapi({ description: "Must be `true`: explicit confirmation of permanent deletion (400 confirmation-required otherwise)" }),
  expected_revision: z.coerce.number().int().min(1).max(2_147_483_647).openapi({ description: "The revision the editor loaded" }),
});

export const route = createRoute({
  method: "delete",
  path: "/publications/{id}",
  tags: ["publications"],
  summary: "Permanently delete an editable publication",
  description: "Removes the publication, its destinations and any linked draft post. Needs the editor role.",
  request: { params: PublicationIdParams, query: DeletePublicationQuery },
  responses: { 200: jsonResponse(ActionOutputBody, "Deleted"), ...problems(400, 401, 403, 404, 409, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("DELETE /publications/{id}", "issue 3");
};
