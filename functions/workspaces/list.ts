import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { toWorkspace, Workspace } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/workspaces",
  operationId: "listWorkspaces",
  tags: ["workspaces"],
  summary: "The workspaces the caller belongs to, oldest first",
  description: 'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ limit: limitParam(50, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(Workspace), "The caller's workspaces"), ...problems(401, 422) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const page = keyset(
    c,
    [
      { column: workspaces.createdAt, kind: "date" },
      { column: workspaces.id, kind: "string" },
    ],
    "asc",
    c.req.valid("query"),
  );
  const rows = await db(c)
    .select({ workspace: workspaces, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.userId, currentUser(c).id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const mine = page.answer(rows, (r) => [r.workspace.createdAt, r.workspace.id]);
  return c.json(
    withSchemaEach(
      c,
      Workspace,
      mine.map((r) => toWorkspace(r.workspace, r.role)),
    ),
    200,
  );
};
