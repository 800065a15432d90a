import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { Workspace } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/workspaces",
  tags: ["workspaces"],
  summary: "The workspaces the caller belongs to, oldest first",
  responses: { 200: jsonResponse(z.array(Workspace), "The caller's workspaces"), ...problems(401) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const rows = await db(c)
    .select({ id: workspaces.id, name: workspaces.name, role: workspaceMembers.role, createdAt: workspaces.createdAt })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, currentUser(c).id))
    .orderBy(asc(workspaces.createdAt), asc(workspaces.id));
  return c.json(withSchemaEach(c, Workspace, rows.map((r) => ({ id: r.id, name: r.name, role: r.role, created_at: r.createdAt.toISOString() }))), 200);
};
