import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, eq, lt } from "drizzle-orm";
import { designRevisions } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { loadDesignFor } from "./design-view";
import { DesignIdParams, DesignRevisionList } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/image-editor/designs/{id}/revisions",
  tags: ["image-editor"],
  summary: "A design's revisions, newest first",
  description: 'When more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { params: DesignIdParams, query: z.object({ limit: limitParam(100, 500), cursor: cursorParam }) },
  responses: { 200: jsonResponse(DesignRevisionList, "The revisions"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { limit, cursor } = c.req.valid("query");
  const before = cursor ? (decodeCursor(cursor, ["number"])[0] as number) : null;
  if (before !== null && !(Number.isInteger(before) && before >= 1 && before <= 2_147_483_647)) {
    throw new ApiError("validation-error", {
      detail: "The cursor is not one this API issued; start again without it.",
      errors: [{ location: "query.cursor", message: "Invalid cursor" }],
    });
  }
  const database = db(c);
  await loadDesignFor(database, currentUser(c).id, id, "viewer");
  // Served by design_revisions_design_revision_key (design_id, revision).
  const rows = await database
    .select({ id: designRevisions.id, revision: designRevisions.revision, createdAt: designRevisions.createdAt, createdBy: designRevisions.createdBy })
    .from(designRevisions)
    .where(and(eq(designRevisions.designId, id), before !== null ? lt(designRevisions.revision, before) : undefined))
    .orderBy(desc(designRevisions.revision))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.revision]) : null);
  const revisions = page.map((r) => ({ id: r.id, revision: r.revision, created_at: r.createdAt.toISOString(), created_by_id: r.createdBy }));
  return c.json(withSchema(c, DesignRevisionList, { revisions }), 200);
};
