import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { AnalyticsSourceFilter, Overview } from "./schemas";

export const AnalyticsQuery = z.object({
  workspace_id: WorkspaceIdField,
  days: z.coerce
    .number()
    .int()
    .pipe(z.union([z.literal(7), z.literal(30), z.literal(90)]))
    .default(30)
    .openapi({ enum: [7, 30, 90], description: "Content published within the last 7, 30 or 90 days" }),
  account_id: IdParam.optional().openapi({ description: "Only this account's results and content totals" }),
  source: AnalyticsSourceFilter.default("all").openapi({ description: "Content source filter; account growth stays account-wide" }),
  sort: z.enum(["engagement", "views", "newest"]).default("engagement"),
  cursor: cursorParam.openapi({ description: "Opaque cursor from content_next_cursor, bound to the source" }),
  limit: limitParam(50, 100).openapi({ description: "Content results per page, 1 to 100" }),
});

export const route = createRoute({
  method: "get",
  path: "/analytics",
  tags: ["analytics"],
  summary: "Stored whole-account content analytics",
  request: { query: AnalyticsQuery },
  responses: { 200: jsonResponse(Overview, "The overview"), ...problems(401, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /analytics", "a later issue");
};
