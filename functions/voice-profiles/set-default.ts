import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { IdParam, RevisionField, WorkspaceIdField } from "../../lib/schemas/common";
import { VoiceProfile } from "./schemas";

export const SetDefaultVoiceProfileRequest = z
  .object({ expected_revision: RevisionField, workspace_id: WorkspaceIdField })
  .openapi("SetDefaultVoiceProfileRequest");

export const route = createRoute({
  method: "post",
  path: "/voice-profiles/{id}/default",
  tags: ["voice-profiles"],
  summary: "Make a Voice Profile the workspace default (admin or owner)",
  description: "The previous default stops being one in the same change. A stale `expected_revision` answers 409 revision-conflict.",
  request: { params: z.object({ id: IdParam.openapi({ description: "Voice Profile ID" }) }), body: jsonBody(SetDefaultVoiceProfileRequest) },
  responses: { 200: jsonResponse(VoiceProfile, "The updated profile"), ...problems(400, 401, 403, 404, 409, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  // CONTRACT.md §2: admins manage the default voice.
  await requireRole(db(c), currentUser(c).id, workspace_id, "admin");
  throw notImplemented("POST /voice-profiles/{id}/default", "issue 4");
};
