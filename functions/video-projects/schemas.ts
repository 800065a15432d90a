import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { videoConflicts, videoProjects } from "../../db/schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { BoundedJson, JsonMap, knownValue, OptionalTimestamp, orNull, Timestamp } from "../../lib/schemas/common";
import { JSON_POINTER_PATTERN } from "../../lib/video/pointer";

/** SPEC.md 2.4 VideoProjectResponse. */
export const VideoProjectResponse = responseObject("VideoProjectResponse", {
  id: z.string().openapi({ example: "vpr_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  name: z.string(),
  document: JsonMap.openapi({ description: "The project's timeline document at head_revision (a VideoDocument)" }),
  head_revision: z.number().int(),
  sync_status: knownValue(
    "pending",
    "Render/sync state of the project. `pending` means no render or export has been made from the head revision; Herald does not render video yet, so every project is `pending`",
  ),
  attention_reason: z.string().nullable().openapi({ description: "Why the project needs a person's attention; null while nothing does" }),
  preview_object_key: z.string().nullable().openapi({ description: "Storage key of a rendered preview; null until previews are rendered" }),
  retention_expires_at: OptionalTimestamp.openapi({ description: "When the project would be purged; null: kept until deleted" }),
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
  revision: z.number().int().openapi({
    description: "applied / rebased: the new revision. conflict: head, unchanged. duplicate: the revision the first result gave",
  }),
  project: VideoProjectResponse.openapi({ description: "The project as it is now (for `duplicate` its head may be later than `revision`)" }),
  conflict_id: z.string().nullable().openapi({ description: "On `conflict` (and a duplicate of one): the branch holding the batch" }),
  conflict_name: z.string().nullable().openapi({ description: "The branch's name, unique in the project: conflict-1, conflict-2, …", example: "conflict-1" }),
  overlap_targets: z.array(z.string()).openapi({ description: "On `conflict`: the targets both sides changed; otherwise empty" }),
});

/** An element id as a target: a track or clip id, or `project` for the settings. */
export const Target = z
  .string()
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "A track or clip id, or project")
  .openapi({ description: "The element changed: a track or clip id, or `project` for the project settings", example: "clip-1" });

/** CONTRACT.md §5: `{kind: "set" | "remove", target, path, value?}`; `set` needs a value. */
export const VideoMutationOperation = z
  .object({
    kind: z.enum(["set", "remove"]),
    target: Target,
    path: z
      .string()
      .max(1000)
      .regex(JSON_POINTER_PATTERN, "Expected a JSON Pointer (RFC 6901) such as /style/color; escape ~ as ~0 and / as ~1")
      .openapi({ description: "JSON Pointer inside the target; empty for the whole element; `-` appends to an array", example: "/style/color" }),
    value: BoundedJson(65_536).optional().openapi({ description: "The new value (kind `set`); any JSON, at most 64 KiB" }),
  })
  .superRefine((op, ctx) => {
    if (op.kind === "set" && op.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: "A set operation needs a value" });
  })
  .openapi("VideoMutationOperation");

export const ConflictState = z.enum(["open", "resolved"]);
export const Resolution = z.enum(["keep_head", "apply_branch"]);

/** A conflict branch: a stale batch that overlapped later changes, kept until someone resolves it. */
export const VideoConflict = responseObject("VideoConflict", {
  id: z.string().openapi({ example: "vcf_0123456789abcdefghijklmn" }),
  project_id: z.string(),
  name: z.string().openapi({ example: "conflict-1" }),
  state: ConflictState,
  mutation_id: z.string(),
  base_revision: z.number().int().openapi({ description: "The revision the batch was made against" }),
  head_revision: z.number().int().openapi({ description: "Head when the branch was made" }),
  operations: z.array(VideoMutationOperation),
  overlap_targets: z.array(z.string()),
  resolution: orNull(Resolution),
  resolved_revision: z.number().int().nullable().openapi({ description: "Head after the resolution (the new revision for apply_branch)" }),
  created_at: Timestamp,
  created_by_user_id: z.string().nullable(),
  resolved_at: OptionalTimestamp,
  resolved_by_user_id: z.string().nullable(),
});

type ProjectRow = typeof videoProjects.$inferSelect;
type ConflictRow = typeof videoConflicts.$inferSelect;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toProject = (c: Context, row: ProjectRow) =>
  withSchema(c, VideoProjectResponse, {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    document: row.document as Record<string, unknown>,
    head_revision: row.headRevision,
    sync_status: row.syncStatus,
    attention_reason: row.attentionReason,
    preview_object_key: row.previewObjectKey,
    retention_expires_at: iso(row.retentionExpiresAt),
    trashed_at: iso(row.trashedAt),
    created_at: row.createdAt.toISOString(),
    created_by_user_id: row.createdBy,
    updated_at: row.updatedAt.toISOString(),
    updated_by_user_id: row.updatedBy,
  });

export const toConflict = (row: ConflictRow) => ({
  id: row.id,
  project_id: row.projectId,
  name: row.name,
  state: row.state,
  mutation_id: row.mutationId,
  base_revision: row.baseRevision,
  head_revision: row.headRevision,
  operations: row.operations as z.infer<typeof VideoMutationOperation>[],
  overlap_targets: row.overlapTargets,
  resolution: row.resolution,
  resolved_revision: row.resolvedRevision,
  created_at: row.createdAt.toISOString(),
  created_by_user_id: row.createdBy,
  resolved_at: iso(row.resolvedAt),
  resolved_by_user_id: row.resolvedBy,
});
