import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, asc, eq, gt, or } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { toWorkspace, Workspace } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/workspaces",
  tags: ["workspaces"],
  summary: "The workspaces the caller belongs to, oldest first",
  description: 'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ limit: limitParam(50, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(Workspace), "The caller's workspaces"), ...problems(401, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const rows = await db(c)
    .select({ workspace: workspaces, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(
      and(
        eq(workspaceMembers.userId, currentUser(c).id),
        after
          ? or(gt(workspaces.createdAt, new Date(after[0])), and(eq(workspaces.createdAt, new Date(after[0])), gt(workspaces.id, after[1] as string)))
          : undefined,
      ),
    )
    .orderBy(asc(workspaces.createdAt), asc(workspaces.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.workspace.createdAt.toISOString(), last.workspace.id]) : null);
  return c.json(
    withSchemaEach(
      c,
      Workspace,
      page.map((r) => toWorkspace(r.workspace, r.role)),
    ),
    200,
  );
};
