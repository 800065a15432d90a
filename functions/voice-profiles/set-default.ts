import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, ne, sql } from "drizzle-orm";
import { voiceProfiles } from "../../db/schema";
import { audit } from "../../lib/audit";
import { assertRevision } from "../../lib/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { RevisionField, WorkspaceIdField } from "../../lib/schemas/common";
import { accountIdsOf, lockWorkspaceVoices } from "../../lib/voice/store";
import { toVoiceProfile } from "./present";
import { VoiceProfile, VoiceProfileIdParams } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const SetDefaultVoiceProfileRequest = z
  .object({ expected_revision: RevisionField, workspace_id: WorkspaceIdField })
  .openapi("SetDefaultVoiceProfileRequest");

export const route = createRoute({
  method: "post",
  path: "/voice-profiles/{id}/default",
  operationId: "setDefaultVoiceProfile",
  tags: ["voice-profiles"],
  summary: "Make a Voice Profile the workspace default (admin or owner)",
  description:
    "One transaction clears the previous default and sets this one, so the workspace never has two defaults or none; both profiles' " +
    "revisions grow by one (each one's `is_default` changed). Making the current default the default again changes nothing. " +
    "The profile must belong to `workspace_id` (else 404). A stale `expected_revision` answers 409 revision-conflict.",
  request: { params: VoiceProfileIdParams, body: jsonBody(SetDefaultVoiceProfileRequest) },
  responses: { 200: jsonResponse(VoiceProfile, "The updated profile"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

// CONTRACT.md §2: admins manage the default voice. The rule is the body's workspace; the profile in the
// path is checked by the read below, which finds it only in that workspace (else 404).
export const access = workspaceRole("admin", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { expected_revision, workspace_id } = c.req.valid("json");
  const database = db(c);
  const row = await database.transaction(async (tx) => {
    // Default switches of a workspace queue here: each reads the current default after the previous switch committed.
    await lockWorkspaceVoices(tx, workspace_id);
    const [profile] = await tx
      .select()
      .from(voiceProfiles)
      .where(and(eq(voiceProfiles.id, id), eq(voiceProfiles.workspaceId, workspace_id)));
    if (!profile) throw notFound("voice profile");
    assertRevision(expected_revision, profile.revision, "voice profile");
    if (profile.isDefault) return profile;

    const cleared = await tx
      .update(voiceProfiles)
      .set({ isDefault: false, revision: sql`${voiceProfiles.revision} + 1`, updatedAt: sql`now()` })
      .where(and(eq(voiceProfiles.workspaceId, workspace_id), eq(voiceProfiles.isDefault, true), ne(voiceProfiles.id, id)))
      .returning({ id: voiceProfiles.id });
    const [updated] = await tx
      .update(voiceProfiles)
      .set({ isDefault: true, revision: sql`${voiceProfiles.revision} + 1`, updatedAt: sql`now()` })
      .where(and(eq(voiceProfiles.id, id), eq(voiceProfiles.revision, expected_revision)))
      .returning();
    for (const old of cleared) {
      await audit(tx, { ...auditActor(c), workspaceId: workspace_id, action: "voice_profile.default.unset", targetType: "voice_profile", targetId: old.id });
    }
    await audit(tx, { ...auditActor(c), workspaceId: workspace_id, action: "voice_profile.default.set", targetType: "voice_profile", targetId: id });
    return updated;
  });
  const accounts = await accountIdsOf(database, [row.id]);
  return c.json(withSchema(c, VoiceProfile, toVoiceProfile(row, accounts.get(row.id) ?? [])), 200);
};
