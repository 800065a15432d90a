import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, sql } from "drizzle-orm";
import { publications } from "../../db/schema";
import { publicBaseUrl } from "../../lib/env";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { scopedRead } from "../../lib/http/scoped-read";
import { listConditions } from "../../lib/publishing/list-filters";
import { publicationPage } from "../../lib/publishing/page";
import { DateTimeParam, OffsetQuery, WorkspaceIdField } from "../../lib/schemas/common";
import { ACTIVITY_BUCKETS, PublicationResponse, PublicationStatus } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

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
    ...problems(401, 404, 422),
  },
});

export const access = workspaceRole("viewer", inQuery(), { readBesideAuth: true });

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const database = db(c);
  const { result: rows } = await scopedRead(c, (guard) => {
    const after = query.cursor ? decodeCursor(query.cursor, ["date", "string"]) : null;
    const page = database
      .select()
      .from(publications)
      .where(
        and(guard, ...listConditions(query), after ? sql`(${publications.createdAt}, ${publications.id}) < (${new Date(after[0])}, ${after[1]})` : undefined),
      )
      .orderBy(desc(publications.createdAt), desc(publications.id))
      .limit(query.limit + 1)
      .offset(query.offset ?? 0);
    return publicationPage(database, publicBaseUrl(c.env, c.req.url), page);
  });
  const last = rows.length > query.limit ? rows[query.limit - 1] : undefined;
  setNextLink(c, last ? encodeCursor([last.publication.createdAt.toISOString(), last.publication.id]) : null);
  const items = rows.slice(0, query.limit).map((row) => row.response);
  return c.json(withSchemaEach(c, PublicationResponse, items), 200);
};
