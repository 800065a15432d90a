import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { videoConflicts } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { IdParam } from "../../lib/schemas/common";
import { ConflictState, toConflict, VideoConflict } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/video-projects/{id}/conflicts",
  operationId: "listVideoProjectConflicts",
  tags: ["video-projects"],
  summary: "A project's conflict branches, open ones first (viewer or higher)",
  description:
    'A bare array, open branches before resolved ones, each group oldest first (conflict-1, conflict-2, …). When more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: {
    params: z.object({ id: IdParam.openapi({ description: "Video project ID" }) }),
    query: z.object({
      state: ConflictState.optional().openapi({ description: "Only open or only resolved branches" }),
      limit: limitParam(50, 200),
      cursor: cursorParam,
    }),
  },
  responses: { 200: jsonResponse(z.array(VideoConflict), "The project's conflict branches"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("video-project"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const query = c.req.valid("query");
  const page = keyset(
    c,
    [
      { column: videoConflicts.state, kind: "string" },
      { column: videoConflicts.number, kind: "number" },
    ],
    "asc",
    query,
  );
  // Served by video_conflicts_listing_idx (project_id, state, number): 'open' sorts before 'resolved'.
  const rows = await db(c)
    .select()
    .from(videoConflicts)
    .where(and(eq(videoConflicts.projectId, id), query.state ? eq(videoConflicts.state, query.state) : undefined, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const conflicts = page.answer(rows, (r) => [r.state, r.number]).map(toConflict);
  return c.json(withSchemaEach(c, VideoConflict, conflicts), 200);
};
