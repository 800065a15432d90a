import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, asc, eq, gt, or } from "drizzle-orm";
import { videoConflicts } from "../../db/schema";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { requireRole } from "../../lib/http/workspace-guard";
import { IdParam } from "../../lib/schemas/common";
import { ConflictState, toConflict, VideoConflict } from "./schemas";
import { projectWorkspace } from "../../lib/video/store";

export const route = createRoute({
  method: "get",
  path: "/video-projects/{id}/conflicts",
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

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { state, limit, cursor } = c.req.valid("query");
  const after = cursor ? decodeCursor(cursor, ["string", "number"]) : null;
  const database = db(c);
  await requireRole(database, currentUser(c).id, await projectWorkspace(database, id), "viewer", "video project");
  // Served by video_conflicts_listing_idx (project_id, state, number): 'open' sorts before 'resolved'.
  const rows = await database
    .select()
    .from(videoConflicts)
    .where(
      and(
        eq(videoConflicts.projectId, id),
        state ? eq(videoConflicts.state, state) : undefined,
        after
          ? or(gt(videoConflicts.state, after[0] as "open"), and(eq(videoConflicts.state, after[0] as "open"), gt(videoConflicts.number, after[1] as number)))
          : undefined,
      ),
    )
    .orderBy(asc(videoConflicts.state), asc(videoConflicts.number))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.state, last.number]) : null);
  return c.json(withSchemaEach(c, VideoConflict, page.map(toConflict)), 200);
};
