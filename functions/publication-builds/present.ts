import type { BuildRow } from "../../lib/builds/access";

/** SPEC.md 2.6 Build from its row (without `$schema`, which the route adds). */
export function toBuild(row: BuildRow) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    revision: row.revision,
    state: row.state,
    phase: row.phase,
    publication_id: row.publicationId,
    social_set_id: null,
    voice_profile_id: row.voiceProfileId,
    assets: row.assets,
    context_urls: row.contextUrls,
    input: row.input,
    result: row.result,
    error_code: row.errorCode,
    error_message: row.errorMessage,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  } as never;
}
