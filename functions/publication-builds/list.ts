import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { publicationBuilds } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { toBuild } from "./present";
import { Build } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/publication-builds",
  operationId: "listBuilds",
  tags: ["publication-builds"],
  summary: "The workspace's builds, newest first",
  description: 'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(20, 100), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(Build), "The builds"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const page = keyset(
    c,
    [
      { column: publicationBuilds.createdAt, kind: "date" },
      { column: publicationBuilds.id, kind: "string" },
    ],
    "desc",
    query,
  );
  // Served by publication_builds_workspace_idx (workspace_id, created_at desc, id desc).
  const rows = await db(c)
    .select()
    .from(publicationBuilds)
    .where(and(eq(publicationBuilds.workspaceId, query.workspace_id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  return c.json(withSchemaEach(c, Build, page.answer(rows, (r) => [r.createdAt, r.id]).map(toBuild)), 200);
};
