import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { publicBaseUrl } from "../../lib/env";
import type { AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { toMediaItem } from "../../lib/media/item";
import { MediaIdParams, MediaItem } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/media/{id}",
  operationId: "getMedia",
  tags: ["media"],
  summary: "Get a media item (viewer or above)",
  description:
    "One media item of a workspace the caller belongs to: type, size, dimensions or duration, processing state, its retention class (library, temporary) or trash, and how often it was used. 404 for an item of another workspace.",
  request: { params: MediaIdParams },
  responses: { 200: jsonResponse(MediaItem, "The item"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("media"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const row = scopedResource(c, "media");
  return c.json(withSchema(c, MediaItem, toMediaItem(row, publicBaseUrl(c.env, c.req.url))), 200);
};
