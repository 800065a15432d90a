import type { VoiceProfileRow } from "../../lib/voice/store";

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
