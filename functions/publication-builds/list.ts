import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { publicationBuilds } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { requireReadRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { toBuild } from "./present";
import { Build } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/publication-builds",
  tags: ["publication-builds"],
  summary: "The workspace's builds, newest first",
  description: 'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(20, 100), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(Build), "The builds"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id, limit, cursor } = c.req.valid("query");
  const database = db(c);
  await requireReadRole(c, workspace_id, "viewer");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const afterAt = after ? new Date(after[0]) : null;
  // Served by publication_builds_workspace_idx (workspace_id, created_at desc, id desc).
  const rows = await database
    .select()
    .from(publicationBuilds)
    .where(
      and(
        eq(publicationBuilds.workspaceId, workspace_id),
        after
          ? or(lt(publicationBuilds.createdAt, afterAt!), and(eq(publicationBuilds.createdAt, afterAt!), lt(publicationBuilds.id, after[1] as string)))
          : undefined,
      ),
    )
    .orderBy(desc(publicationBuilds.createdAt), desc(publicationBuilds.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null);
  return c.json(withSchemaEach(c, Build, page.map(toBuild)), 200);
};
