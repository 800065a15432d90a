import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { workspaces } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { revisionConflict } from "../../lib/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { RevisionField } from "../../lib/schemas/common";
import { toWorkspace, Workspace, WorkspaceName } from "./schemas";
import { workspaceInPath, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const UpdateWorkspaceRequest = z.object({ expected_revision: RevisionField, name: WorkspaceName }).openapi("UpdateWorkspaceRequest");

export const route = createRoute({
  method: "patch",
  path: "/workspaces/{id}",
  operationId: "updateWorkspace",
  tags: ["workspaces"],
  summary: "Rename a workspace (admin or owner)",
  description: "Optimistic concurrency: a stale expected_revision gets 409 revision-conflict with current_revision.",
  request: { params: z.object({ id: z.string().max(100) }), body: jsonBody(UpdateWorkspaceRequest) },
  responses: { 200: jsonResponse(Workspace, "The renamed workspace"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("admin", workspaceInPath());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { expected_revision, name } = c.req.valid("json");
  const { role } = scope(c);
  const row = await db(c).transaction(async (tx) => {
    // The revision filter makes this a compare-and-set: of concurrent writers only one matches.
    const [row] = await tx
      .update(workspaces)
      .set({ name, revision: sql`${workspaces.revision} + 1`, updatedAt: sql`now()` })
      .where(and(eq(workspaces.id, id), eq(workspaces.revision, expected_revision)))
      .returning();
    if (!row) {
      const [current] = await tx.select({ revision: workspaces.revision }).from(workspaces).where(eq(workspaces.id, id));
      throw revisionConflict(current.revision, "workspace");
    }
    await audit(tx, { ...auditActor(c), workspaceId: id, action: "workspace.update", targetType: "workspace", targetId: id });
    return row;
  });
  return c.json(withSchema(c, Workspace, toWorkspace(row, role)), 200);
};
