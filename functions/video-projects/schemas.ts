import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { JsonMap, knownValue, OptionalTimestamp, Timestamp } from "../../lib/schemas/common";

/** SPEC.md 2.4 VideoProjectResponse. */
export const VideoProjectResponse = responseObject("VideoProjectResponse", {
  id: z.string().openapi({ example: "vpr_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  name: z.string(),
  document: JsonMap.openapi({ description: "The project's timeline document at head_revision" }),
  head_revision: z.number().int(),
  sync_status: knownValue("pending", "Render/sync state of the project"),
  attention_reason: z.string().nullable().openapi({ description: "Why the project needs a person's attention, if it does" }),
  preview_object_key: z.string().nullable(),
  retention_expires_at: OptionalTimestamp,
  trashed_at: OptionalTimestamp,
  created_at: Timestamp,
  created_by_user_id: z.string().nullable(),
  updated_at: Timestamp,
  updated_by_user_id: z.string().nullable(),
});

/** CONTRACT.md §5 fixes the outcomes of a mutation batch. */
export const MutationOutcome = z.enum(["applied", "rebased", "conflict", "duplicate"]).openapi({
  description:
    "`applied`: based on head. `rebased`: stale but disjoint from the intervening changes. `conflict`: stale and overlapping; head unchanged, the batch is kept on a conflict branch. `duplicate`: this mutation_id was seen before; the first result is returned.",
});

/** SPEC.md 2.4 VideoProjectMutationResponse. */
export const VideoProjectMutationResponse = responseObject("VideoProjectMutationResponse", {
  outcome: MutationOutcome,
  revision: z.number().int().openapi({ description: "The project's head revision after the batch" }),
  project: VideoProjectResponse,
  conflict_id: z.string().nullable().openapi({ description: "On `conflict`: the branch holding the batch" }),
  conflict_name: z.string().nullable(),
  overlap_targets: z.array(z.string()).openapi({ description: "On `conflict`: the targets both sides changed" }),
});
