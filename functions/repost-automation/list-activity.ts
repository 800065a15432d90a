import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { repostActivity } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { RepostActivityResponse } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/repost-automation/activity",
  operationId: "listRepostActivity",
  tags: ["repost-automation"],
  summary: "What repost automation did in the workspace, and why, newest first",
  description: 'When more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(50, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(RepostActivityResponse, "Activity"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const page = keyset(
    c,
    [
      { column: repostActivity.at, kind: "date" },
      { column: repostActivity.id, kind: "string" },
    ],
    "desc",
    query,
  );
  // Served by repost_activity_workspace_idx (workspace_id, at, id), scanned backwards.
  const rows = await db(c)
    .select()
    .from(repostActivity)
    .where(and(eq(repostActivity.workspaceId, query.workspace_id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const items = page
    .answer(rows, (r) => [r.at, r.id])
    .map((r) => ({
      id: r.id,
      policy_id: r.policyId,
      rendition_id: r.renditionId,
      target_account_id: r.targetAccountId,
      stage: r.stage,
      action: r.action,
      status: r.status,
      reason: r.reason,
      external_id: r.externalId,
      at: r.at.toISOString(),
    }));
  return c.json(withSchema(c, RepostActivityResponse, { items }), 200);
};
