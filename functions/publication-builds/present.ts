import type { z } from "@hono/zod-openapi";
import type { BuildRow } from "../../lib/builds/build-row";
import type { BuildInputValue, BuildResultValue } from "../../lib/builds/plan-types";
import type { Build } from "./schemas";

/** SPEC.md 2.6 Build from its row (without `$schema`, which the route adds). */
export function toBuild(row: BuildRow): Omit<z.input<typeof Build>, "$schema"> {
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
    // The columns are typed as any JSON object; they hold what lib/builds/assemble.ts and run.ts wrote.
    input: row.input as BuildInputValue,
    result: row.result as BuildResultValue | null,
    error_code: row.errorCode,
    error_message: row.errorMessage,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
