import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { DateTimeParam, OffsetQuery, WorkspaceIdField } from "../../lib/schemas/common";
import { ACTIVITY_BUCKETS, PublicationResponse, PublicationStatus } from "./schemas";

export const ListPublicationsQuery = z.object({
  workspace_id: WorkspaceIdField,
  status: PublicationStatus.optional(),
  activity_bucket: z
    .enum(ACTIVITY_BUCKETS)
    .optional()
    .openapi({ description: "draft: drafts; scheduled: scheduled or publishing; published: published or partially published; failed: failed" }),
  content_profile: z.string().max(100).optional(),
  platform: z.string().max(50).optional().openapi({ description: "Destination platform" }),
  search: z.string().max(200).optional().openapi({ description: "Case-insensitive match on title or source text" }),
  cursor: cursorParam,
  created_from: DateTimeParam.optional().openapi({ description: "RFC 3339; created at or after (inclusive)" }),
  created_before: DateTimeParam.optional().openapi({ description: "RFC 3339; created before (exclusive)" }),
  calendar_from: DateTimeParam.optional().openapi({ description: "RFC 3339; calendar occurrence at or after (inclusive)" }),
  calendar_before: DateTimeParam.optional().openapi({ description: "RFC 3339; calendar occurrence before (exclusive)" }),
  limit: limitParam(50, 200),
  offset: OffsetQuery,
});

export const route = createRoute({
  method: "get",
  path: "/publications",
  tags: ["publications"],
  summary: "List publications, newest first",
  description: 'A bare array; when more exist the response carries `Link: <…cursor=…>; rel="next"`.',
  request: { query: ListPublicationsQuery },
  responses: {
    200: {
      ...jsonResponse(z.array(PublicationResponse), "One page of publications"),
      headers: { link: { description: 'rel="next" link to the following page, when there is one', schema: { type: "string" } } },
    },
    ...problems(401, 404, 422, 501),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /publications", "issue 3");
};
