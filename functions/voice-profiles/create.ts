import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { voiceProfiles } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { VOICE_SCHEMA_VERSION } from "../../lib/voice/definition";
import { isDefaultOnCreate } from "../../lib/voice/rules";
import { hasDefault, lockWorkspaceVoices, replaceAssignments } from "../../lib/voice/store";
import { checkAssignments } from "./assignments";
import { toVoiceProfile } from "./present";
import { CreateVoiceProfileRequest, VoiceProfile } from "./schemas";
import { inBody, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/voice-profiles",
  operationId: "createVoiceProfile",
  tags: ["voice-profiles"],
  summary: "Create a Voice Profile (editor or higher)",
  description:
    "Starts at revision 1. The first profile of a workspace becomes its default (`is_default: true`); later ones do not. " +
    "Accepts an Idempotency-Key so a retried request never creates a second profile.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateVoiceProfileRequest) },
  responses: { 201: jsonResponse(VoiceProfile, "The new profile"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  return idempotent(c, { workspaceId: body.workspace_id, operation: "voice_profiles.create", request: body }, async (tx) => {
    await lockWorkspaceVoices(tx, body.workspace_id);
    await checkAssignments(tx, { id: null, workspaceId: body.workspace_id }, body.assigned_account_ids);
    const [row] = await tx
      .insert(voiceProfiles)
      .values({
        id: newId("vop"),
        workspaceId: body.workspace_id,
        name: body.name,
        definition: body.definition,
        schemaVersion: VOICE_SCHEMA_VERSION,
        isDefault: isDefaultOnCreate(await hasDefault(tx, body.workspace_id)),
        createdBy: user.id,
      })
      .returning();
    await replaceAssignments(tx, row, body.assigned_account_ids);
    await audit(tx, { ...auditActor(c), workspaceId: row.workspaceId, action: "voice_profile.create", targetType: "voice_profile", targetId: row.id });
    return { status: 201, body: withSchema(c, VoiceProfile, toVoiceProfile(row, body.assigned_account_ids)) };
  });
};
