import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { imageTemplates } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema, withSchemaEach } from "../../lib/http/schema-ref";
import { roleAtLeast } from "../../lib/http/workspace-guard";
import { BUILT_IN_TEMPLATES } from "../../lib/image-editor/built-in-templates";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { ListTemplatesOutputBody, TemplateResponse } from "./schemas";
import { fromBuiltIn, toTemplate } from "./template-view";
import { inQuery, workspaceRole } from "../../lib/http/access";
import { scope } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/image-editor/templates",
  operationId: "listTemplates",
  tags: ["image-editor"],
  summary: "List built-in and workspace templates",
  description:
    "Built-in templates first (`built_in: true`, `workspace_id: null`), then the workspace's own, oldest first. Any member may list. " +
    "At most `limit` workspace templates per page (built-in ones come on the first page only); when more exist the response has " +
    '`Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(100, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(ListTemplatesOutputBody, "Built-in templates and the workspace's own"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const page = keyset(
    c,
    [
      { column: imageTemplates.createdAt, kind: "date" },
      { column: imageTemplates.id, kind: "string" },
    ],
    "asc",
    query,
  );
  // Served by image_templates_workspace_idx (workspace_id, created_at, id).
  const rows = await db(c)
    .select()
    .from(imageTemplates)
    .where(and(eq(imageTemplates.workspaceId, query.workspace_id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const own = page.answer(rows, (r) => [r.createdAt, r.id]).map(toTemplate);
  const templates = [...(query.cursor ? [] : BUILT_IN_TEMPLATES.map(fromBuiltIn)), ...own];
  return c.json(
    withSchema(c, ListTemplatesOutputBody, { can_edit: roleAtLeast(scope(c).role, "editor"), templates: withSchemaEach(c, TemplateResponse, templates) }),
    200,
  );
};
