import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { designRevisions } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { DesignIdParams, DesignRevisionList } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/image-editor/designs/{id}/revisions",
  operationId: "listDesignRevisions",
  tags: ["image-editor"],
  summary: "A design's revisions, newest first",
  description: 'When more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { params: DesignIdParams, query: z.object({ limit: limitParam(100, 500), cursor: cursorParam }) },
  responses: { 200: jsonResponse(DesignRevisionList, "The revisions"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("design"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const page = keyset(c, [{ column: designRevisions.revision, kind: "number" }], "desc", c.req.valid("query"));
  // Served by design_revisions_design_revision_key (design_id, revision).
  const rows = await db(c)
    .select({ id: designRevisions.id, revision: designRevisions.revision, createdAt: designRevisions.createdAt, createdBy: designRevisions.createdBy })
    .from(designRevisions)
    .where(and(eq(designRevisions.designId, id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const revisions = page
    .answer(rows, (r) => [r.revision])
    .map((r) => ({ id: r.id, revision: r.revision, created_at: r.createdAt.toISOString(), created_by_id: r.createdBy }));
  return c.json(withSchema(c, DesignRevisionList, { revisions }), 200);
};
