import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, count, eq, ne } from "drizzle-orm";
import { voiceProfiles } from "../../db/schema";
import { audit } from "../../lib/audit";
import { assertRevision } from "../../lib/errors";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { deletionLeavesNoDefault } from "../../lib/voice/rules";
import { lockWorkspaceVoices } from "../../lib/voice/store";
import { ExpectedRevisionQuery } from "../../lib/schemas/common";
import { VoiceProfileIdParams } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "delete",
  path: "/voice-profiles/{id}",
  operationId: "deleteVoiceProfile",
  tags: ["voice-profiles"],
  summary: "Delete a Voice Profile (editor or higher)",
  description:
    "Its account assignments go with it. The workspace default cannot be deleted while other profiles exist (409 not-editable: " +
    "make another profile the default first); the last profile of a workspace can be. A stale `expected_revision` answers 409 revision-conflict.",
  request: {
    params: VoiceProfileIdParams,
    query: z.object({ expected_revision: ExpectedRevisionQuery.openapi({ description: "The profile's revision as loaded" }) }),
  },
  responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 409, 422) },
});

export const access = workspaceRole("editor", resourceInPath("voice-profile"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { expected_revision } = c.req.valid("query");
  await db(c).transaction(async (tx) => {
    await lockWorkspaceVoices(tx, scopedResource(c, "voice-profile").workspaceId);
    // Read again under the lock: a default switch may have committed meanwhile.
    const [profile] = await tx.select().from(voiceProfiles).where(eq(voiceProfiles.id, id));
    if (!profile) throw notFound("voice profile");
    assertRevision(expected_revision, profile.revision, "voice profile");
    const [{ others }] = await tx
      .select({ others: count() })
      .from(voiceProfiles)
      .where(and(eq(voiceProfiles.workspaceId, profile.workspaceId), ne(voiceProfiles.id, id)));
    if (deletionLeavesNoDefault(profile.isDefault, others)) {
      throw new ApiError("not-editable", { detail: "This is the workspace's default voice; make another profile the default before deleting it." });
    }
    await tx.delete(voiceProfiles).where(and(eq(voiceProfiles.id, id), eq(voiceProfiles.revision, expected_revision)));
    await audit(tx, { ...auditActor(c), workspaceId: profile.workspaceId, action: "voice_profile.delete", targetType: "voice_profile", targetId: id });
  });
  return c.body(null, 204);
};
