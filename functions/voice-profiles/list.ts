import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, asc, eq, gt, or } from "drizzle-orm";
import { voiceProfiles } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { cursorParam, decodeCursor, encodeCursor, limitParam, setNextLink } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { requireReadRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { accountIdsOf } from "../../lib/voice/store";
import { toVoiceProfile } from "./present";
import { VoiceProfile } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/voice-profiles",
  tags: ["voice-profiles"],
  summary: "The workspace's Voice Profiles, oldest first",
  description: 'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(50, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(VoiceProfile), "The profiles"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id, limit, cursor } = c.req.valid("query");
  const database = db(c);
  await requireReadRole(c, workspace_id, "viewer");
  const after = cursor ? decodeCursor(cursor, ["date", "string"]) : null;
  const afterAt = after ? new Date(after[0]) : null;
  // Served by voice_profiles_workspace_idx (workspace_id, created_at, id).
  const rows = await database
    .select()
    .from(voiceProfiles)
    .where(
      and(
        eq(voiceProfiles.workspaceId, workspace_id),
        after ? or(gt(voiceProfiles.createdAt, afterAt!), and(eq(voiceProfiles.createdAt, afterAt!), gt(voiceProfiles.id, after[1] as string))) : undefined,
      ),
    )
    .orderBy(asc(voiceProfiles.createdAt), asc(voiceProfiles.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  setNextLink(c, rows.length > limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null);
  const accounts = await accountIdsOf(
    database,
    page.map((r) => r.id),
  );
  return c.json(
    withSchemaEach(
      c,
      VoiceProfile,
      page.map((r) => toVoiceProfile(r, accounts.get(r.id) ?? [])),
    ),
    200,
  );
};
