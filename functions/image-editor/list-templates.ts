import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { imageTemplates } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema, withSchemaEach } from "../../lib/http/schema-ref";
import { requireRole, roleAtLeast } from "../../lib/http/workspace-guard";
import { BUILT_IN_TEMPLATES } from "../../lib/image-editor/built-in-templates";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { ListTemplatesOutputBody, TemplateResponse } from "./schemas";
import { fromBuiltIn, toTemplate } from "./template-view";

export const route = createRoute({
  method: "get",
  path: "/image-editor/templates",
  tags: ["image-editor"],
  summary: "List built-in and workspace templates",
  description: "Built-in templates first (`built_in: true`, `workspace_id: null`), then the workspace's own, oldest first. Any member may list.",
  request: { query: z.object({ workspace_id: WorkspaceIdField }) },
  responses: { 200: jsonResponse(ListTemplatesOutputBody, "Built-in templates and the workspace's own"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  const database = db(c);
  const role = await requireRole(database, currentUser(c).id, workspace_id, "viewer");
  // Served by image_templates_workspace_idx (workspace_id, created_at, id).
  const rows = await database
    .select()
    .from(imageTemplates)
    .where(eq(imageTemplates.workspaceId, workspace_id))
    .orderBy(asc(imageTemplates.createdAt), asc(imageTemplates.id));
  const templates = [...BUILT_IN_TEMPLATES.map(fromBuiltIn), ...rows.map(toTemplate)];
  return c.json(withSchema(c, ListTemplatesOutputBody, { can_edit: roleAtLeast(role, "editor"), templates: withSchemaEach(c, TemplateResponse, templates) }), 200);
};
