import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and } from "drizzle-orm";
import { publications } from "../../db/schema";
import { publicBaseUrl } from "../../lib/env";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
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
  operationId: "listPublications",
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
  const { result } = await scopedRead(c, async (guard) => {
    // Inside the read: a forged cursor is answered only after authentication and the role (lib/http/scoped-read.ts).
    const page = keyset(
      c,
      [
        { column: publications.createdAt, kind: "date" },
        { column: publications.id, kind: "string" },
      ],
      "desc",
      query,
    );
    const read = database
      .select()
      .from(publications)
      .where(and(guard, ...listConditions(query), page.after))
      .orderBy(...page.orderBy)
      .limit(page.limit)
      .offset(query.offset ?? 0);
    return { page, rows: await publicationPage(database, publicBaseUrl(c.env, c.req.url), read) };
  });
  const items = result.page.answer(result.rows, (row) => [row.publication.createdAt, row.publication.id]).map((row) => row.response);
  return c.json(withSchemaEach(c, PublicationResponse, items), 200);
};
