import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { voiceProfiles } from "../../db/schema";
import { audit } from "../../lib/audit";
import { revisionConflict } from "../../lib/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { VOICE_SCHEMA_VERSION } from "../../lib/voice/definition";
import { lockWorkspaceVoices, replaceAssignments } from "../../lib/voice/store";
import { checkAssignments } from "./assignments";
import { toVoiceProfile } from "./present";
import { ReplaceVoiceProfileRequest, VoiceProfile, VoiceProfileIdParams } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "put",
  path: "/voice-profiles/{id}",
  operationId: "replaceVoiceProfile",
  tags: ["voice-profiles"],
  summary: "Replace a Voice Profile (editor or higher)",
  description:
    "Replaces name, definition and assigned accounts; `is_default` is changed only through POST /voice-profiles/{id}/default. " +
    "Assigned accounts must be social accounts of the profile's workspace (422 naming `body.assigned_account_ids[i]`) held by no other " +
    "profile (409 conflict). A stale `expected_revision` answers 409 revision-conflict and changes nothing.",
  request: { params: VoiceProfileIdParams, body: jsonBody(ReplaceVoiceProfileRequest) },
  responses: { 200: jsonResponse(VoiceProfile, "The profile at its new revision"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("voice-profile"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  // Its id and workspace, which do not change; the revision is compared by the update below.
  const profile = scopedResource(c, "voice-profile");
  const row = await db(c).transaction(async (tx) => {
    await lockWorkspaceVoices(tx, profile.workspaceId);
    await checkAssignments(tx, profile, body.assigned_account_ids);
    // Compare-and-set on the revision: of concurrent writers holding the same revision only one matches.
    const [row] = await tx
      .update(voiceProfiles)
      .set({
        name: body.name,
        definition: body.definition,
        schemaVersion: VOICE_SCHEMA_VERSION,
        revision: sql`${voiceProfiles.revision} + 1`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(voiceProfiles.id, id), eq(voiceProfiles.revision, body.expected_revision)))
      .returning();
    if (!row) {
      const [current] = await tx.select({ revision: voiceProfiles.revision }).from(voiceProfiles).where(eq(voiceProfiles.id, id));
      if (!current) throw notFound("voice profile");
      throw revisionConflict(current.revision, "voice profile");
    }
    await replaceAssignments(tx, row, body.assigned_account_ids);
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "voice_profile.update", targetType: "voice_profile", targetId: row.id });
    return row;
  });
  return c.json(withSchema(c, VoiceProfile, toVoiceProfile(row, body.assigned_account_ids)), 200);
};
