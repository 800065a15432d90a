import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { voiceProfiles } from "../../db/schema";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { keyset } from "../../lib/http/keyset";
import { cursorParam, limitParam } from "../../lib/http/pagination";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { accountIdsOf } from "../../lib/voice/store";
import { toVoiceProfile } from "./present";
import { VoiceProfile } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/voice-profiles",
  operationId: "listVoiceProfiles",
  tags: ["voice-profiles"],
  summary: "The workspace's Voice Profiles, oldest first",
  description: 'A bare array; when more exist the response has `Link: <…cursor=…>; rel="next"`.',
  request: { query: z.object({ workspace_id: WorkspaceIdField, limit: limitParam(50, 200), cursor: cursorParam }) },
  responses: { 200: jsonResponse(z.array(VoiceProfile), "The profiles"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const database = db(c);
  const page = keyset(
    c,
    [
      { column: voiceProfiles.createdAt, kind: "date" },
      { column: voiceProfiles.id, kind: "string" },
    ],
    "asc",
    query,
  );
  // Served by voice_profiles_workspace_idx (workspace_id, created_at, id).
  const rows = await database
    .select()
    .from(voiceProfiles)
    .where(and(eq(voiceProfiles.workspaceId, query.workspace_id), page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const profiles = page.answer(rows, (r) => [r.createdAt, r.id]);
  const accounts = await accountIdsOf(
    database,
    profiles.map((r) => r.id),
  );
  return c.json(
    withSchemaEach(
      c,
      VoiceProfile,
      profiles.map((r) => toVoiceProfile(r, accounts.get(r.id) ?? [])),
    ),
    200,
  );
};
