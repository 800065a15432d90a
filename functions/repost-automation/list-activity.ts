import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { repostActivity } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { requireReadRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { RepostActivityResponse } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/repost-automation/activity",
  tags: ["repost-automation"],
  summary: "What repost automation did in the workspace, and why, newest first",
  description: 'When more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(50, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(RepostActivityResponse, "Activity"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id, limit, cursor } = c.req.valid("query");
  const database = db(c);
  await requireReadRole(c, workspace_id, "viewer");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const afterAt = after ? new Date(after[0]) : null;
  // Served by repost_activity_workspace_idx (workspace_id, at, id), scanned backwards.
  const rows = await database
    .select()
    .from(repostActivity)
    .where(
      and(
        eq(repostActivity.workspaceId, workspace_id),
        after ? or(lt(repostActivity.at, afterAt!), and(eq(repostActivity.at, afterAt!), lt(repostActivity.id, after[1] as string))) : undefined,
      ),
    )
    .orderBy(desc(repostActivity.at), desc(repostActivity.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.at.toISOString(), last.id]) : null);
  const items = page.map((r) => ({
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
