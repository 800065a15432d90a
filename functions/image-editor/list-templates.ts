import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, asc, eq, gt, or } from "drizzle-orm";
import { imageTemplates } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema, withSchemaEach } from "../../lib/http/schema-ref";
import { requireReadRole, roleAtLeast } from "../../lib/http/workspace-guard";
import { BUILT_IN_TEMPLATES } from "../../lib/image-editor/built-in-templates";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { ListTemplatesOutputBody, TemplateResponse } from "./schemas";
import { fromBuiltIn, toTemplate } from "./template-view";

export const route = createRoute({
  method: "get",
  path: "/image-editor/templates",
  tags: ["image-editor"],
  summary: "List built-in and workspace templates",
  description:
    "Built-in templates first (`built_in: true`, `workspace_id: null`), then the workspace's own, oldest first. Any member may list. " +
    "At most `limit` workspace templates per page (built-in ones come on the first page only); when more exist the response has " +
    '`Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(100, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(ListTemplatesOutputBody, "Built-in templates and the workspace's own"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id, limit, cursor } = c.req.valid("query");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const database = db(c);
  const role = await requireReadRole(c, workspace_id, "viewer");
  const at = after ? new Date(after[0] as string) : null;
  // Served by image_templates_workspace_idx (workspace_id, created_at, id).
  const rows = await database
    .select()
    .from(imageTemplates)
    .where(
      and(
        eq(imageTemplates.workspaceId, workspace_id),
        at ? or(gt(imageTemplates.createdAt, at), and(eq(imageTemplates.createdAt, at), gt(imageTemplates.id, after![1] as string))) : undefined,
      ),
    )
    .orderBy(asc(imageTemplates.createdAt), asc(imageTemplates.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null);
  const templates = [...(after ? [] : BUILT_IN_TEMPLATES.map(fromBuiltIn)), ...page.map(toTemplate)];
  return c.json(
    withSchema(c, ListTemplatesOutputBody, { can_edit: roleAtLeast(role, "editor"), templates: withSchemaEach(c, TemplateResponse, templates) }),
    200,
  );
};
