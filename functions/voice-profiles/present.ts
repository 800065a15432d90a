import { eq } from "drizzle-orm";
import { voiceProfiles } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { notFound } from "../../lib/http/errors";
import { requireRole } from "../../lib/http/workspace-guard";
import type { VoiceProfileRow } from "../../lib/voice/store";
import type { Role } from "../../db/schema";

/** A stored profile as SPEC.md 2.2 VoiceProfile (without `$schema`, which withSchema adds). */
export const toVoiceProfile = (row: VoiceProfileRow, assignedAccountIds: string[]) => ({
  id: row.id,
  workspace_id: row.workspaceId,
  name: row.name,
  is_default: row.isDefault,
  assigned_account_ids: assignedAccountIds,
  definition: row.definition,
  revision: row.revision,
  schema_version: row.schemaVersion,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/**
 * The profile and the caller's role in its workspace: 404 when there is no such profile or the caller is
 * not a member of its workspace (existence is not revealed), 403 when the role is below `min`.
 */
export async function loadProfileFor(q: Queryable, userId: string, id: string, min: Role): Promise<{ profile: VoiceProfileRow; role: Role }> {
  const [profile] = await q.select().from(voiceProfiles).where(eq(voiceProfiles.id, id)).limit(1);
  if (!profile) throw notFound("voice profile");
  const role = await requireRole(q, userId, profile.workspaceId, min, "voice profile");
  return { profile, role };
}
