import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { IdParam, RevisionField, WorkspaceIdField } from "../../lib/schemas/common";
import type { VideoDocument } from "../../lib/video/document";
import { footprintOf, targetsOf } from "../../lib/video/footprint";
import { decide } from "../../lib/video/rebase";
import { toProject, VideoMutationOperation, VideoProjectMutationResponse } from "./schemas";
import { commitRevision, documentAt, findMutation, laterTouches, lockProject, openConflict, rememberMutation } from "../../lib/video/store";
import { invalidOperations } from "./invalid-operations";
import { inBody, workspaceRole } from "../../lib/http/access";

export const ApplyVideoMutationsRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    base_revision: RevisionField.openapi({ description: "The head revision the batch was made against; at most the current head" }),
    mutation_id: z.string().min(1).max(200).openapi({ description: "Client-chosen id, unique per project; a repeated id answers `duplicate`" }),
    operations: z.array(VideoMutationOperation).min(1).max(500),
  })
  .openapi("ApplyVideoMutationsRequest");

export const route = createRoute({
  method: "post",
  path: "/video-projects/{id}/mutations",
  operationId: "applyVideoProjectMutations",
  tags: ["video-projects"],
  summary: "Apply a versioned mutation batch",
  description:
    "Needs the editor role. The batch must apply to the document at `base_revision` (else 422 naming `body.operations[i]…`; nothing is written). " +
    "Based on head it is `applied`. A stale batch whose targets and paths are disjoint from every later revision is `rebased` onto head; one that overlaps " +
    "them opens a named conflict branch and leaves head unchanged (still a 200, outcome `conflict`). A repeated `mutation_id` answers `duplicate` with the " +
    "first result's revision. A `base_revision` beyond head is a 422: no such revision exists.\n\n" +
    'Operations apply in order. `target` is a track or clip id, or `project` for the settings; `path` is a JSON Pointer inside it. `set` at `""` ' +
    "replaces the element, or creates it when no element has that id (an object with a `track_id` becomes a clip, any other object a track); " +
    '`remove` at `""` deletes it (a track only once no clip is on it). `set` deeper writes that member, creating missing objects on the way; on an ' +
    "array the last segment may be an index (replace) or `-` (append). `remove` needs the member to exist.\n\n" +
    "Two batches overlap when they touch the same target with paths where one is a segment-wise prefix of the other (`/style` overlaps `/style/color`, " +
    "not `/styles`). A path through an array index counts as the whole array, and putting a clip on a track (creating it or setting its `track_id`) " +
    "overlaps creating, replacing or removing that track.",
  request: { params: z.object({ id: IdParam.openapi({ description: "Video project ID" }) }), body: jsonBody(ApplyVideoMutationsRequest) },
  responses: { 200: jsonResponse(VideoProjectMutationResponse, "The outcome and the project"), ...problems(400, 401, 403, 404, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const user = currentUser(c);
  const result = await db(c).transaction(async (tx) => {
    // The rule checked the body's workspace_id (the primary of the two ids); the project must be of that workspace, else 404.
    const project = await lockProject(tx, id, body.workspace_id);

    const seen = await findMutation(tx, id, body.mutation_id);
    if (seen) {
      return {
        outcome: "duplicate" as const,
        revision: seen.revision,
        project,
        conflictId: seen.conflictId,
        conflictName: seen.conflictName,
        overlap: seen.overlapTargets,
      };
    }
    if (body.base_revision > project.headRevision) {
      throw new ApiError("validation-error", {
        detail: `The project is at revision ${project.headRevision}; a batch cannot be based on a later one.`,
        errors: [{ location: "body.base_revision", message: `At most the head revision, ${project.headRevision}`, value: body.base_revision }],
      });
    }

    const stale = body.base_revision < project.headRevision;
    const head = project.document as VideoDocument;
    const decision = decide({
      baseRevision: body.base_revision,
      headRevision: project.headRevision,
      baseDocument: stale ? await documentAt(tx, project, body.base_revision) : head,
      headDocument: head,
      operations: body.operations,
      later: stale ? await laterTouches(tx, id, body.base_revision, targetsOf(footprintOf(body.operations))) : [],
    });
    const remember = { projectId: id, mutationId: body.mutation_id, userId: user.id };
    const auditEntry = { ...auditActor(c), workspaceId: project.workspaceId, targetType: "video_project", targetId: id };

    if (decision.outcome === "invalid")
      throw invalidOperations(decision.errors, "body.operations", `The operations do not apply to revision ${body.base_revision}`);
    if (decision.outcome === "conflict") {
      const conflict = await openConflict(tx, project, {
        ...remember,
        baseRevision: body.base_revision,
        operations: body.operations,
        overlapTargets: decision.overlapTargets,
      });
      await rememberMutation(tx, {
        ...remember,
        outcome: "conflict",
        revision: project.headRevision,
        conflictId: conflict.id,
        overlapTargets: decision.overlapTargets,
      });
      await audit(tx, { ...auditEntry, action: "video_project.mutation.conflict" });
      return {
        outcome: "conflict" as const,
        revision: project.headRevision,
        project,
        conflictId: conflict.id,
        conflictName: conflict.name,
        overlap: decision.overlapTargets,
      };
    }
    const updated = await commitRevision(tx, project, {
      ...decision,
      kind: decision.outcome,
      mutationId: body.mutation_id,
      baseRevision: body.base_revision,
      operations: body.operations,
      userId: user.id,
    });
    await rememberMutation(tx, { ...remember, outcome: decision.outcome, revision: updated.headRevision });
    await audit(tx, { ...auditEntry, action: `video_project.mutation.${decision.outcome}` });
    return { outcome: decision.outcome, revision: updated.headRevision, project: updated, conflictId: null, conflictName: null, overlap: [] as string[] };
  });

  return c.json(
    withSchema(c, VideoProjectMutationResponse, {
      outcome: result.outcome,
      revision: result.revision,
      project: toProject(c, result.project),
      conflict_id: result.conflictId,
      conflict_name: result.conflictName,
      overlap_targets: result.overlap,
    }),
    200,
  );
};
