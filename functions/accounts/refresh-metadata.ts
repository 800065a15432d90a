import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";
import { AccountResponse } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/accounts/{account_id}/refresh-metadata",
  tags: ["accounts"],
  summary: "Refresh a connected account's provider profile metadata",
  description: "Asks the provider for the account's current profile (username, avatar, capabilities). No body. Needs the admin role.",
  request: { params: z.object({ account_id: IdParam.openapi({ description: "Connected account ID" }) }) },
  responses: { 200: jsonResponse(AccountResponse, "The account with fresh metadata"), ...problems(401, 403, 404, 422, 429, 501, 502, 503) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async () => {
  throw notImplemented("POST /accounts/{account_id}/refresh-metadata", "issue 3");
};
