import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { videoConflicts } from "../../db/schema";
import { audit } from "../../lib/audit";
import { revisionConflict } from "../../lib/errors";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { IdParam, RevisionField } from "../../lib/schemas/common";
import { applyOperations, type VideoOperation } from "../../lib/video/apply";
import type { VideoDocument } from "../../lib/video/document";
import { footprintOf } from "../../lib/video/footprint";
import { Resolution, toConflict, toProject, VideoConflict, VideoProjectResponse } from "./schemas";
import { commitRevision } from "../../lib/video/store";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const ResolveVideoConflictRequest = z
  .object({
    resolution: Resolution.openapi({ description: "`keep_head`: drop the branch's batch. `apply_branch`: apply it on the current head as a new revision" }),
    expected_revision: RevisionField.openapi({ description: "The head revision the decision was made against" }),
  })
  .openapi("ResolveVideoConflictRequest");

export const ResolveVideoConflictResponse = responseObject("ResolveVideoConflictResponse", {
  conflict: VideoConflict,
  project: VideoProjectResponse,
});

export const route = createRoute({
  method: "post",
  path: "/video-projects/{id}/conflicts/{conflict_id}/resolve",
  operationId: "resolveVideoProjectConflict",
  tags: ["video-projects"],
  summary: "Resolve a conflict branch (editor or higher)",
  description:
    "`keep_head` marks the branch resolved and leaves head as it is. `apply_branch` applies the branch's operations on the current head as a new revision. " +
    "409 `revision-conflict` (with current_revision) when expected_revision is not head; 409 `not-editable` when the branch is already resolved or its " +
    "operations no longer apply to head (the problem's `errors` name them); nothing changes then.",
  request: {
    params: z.object({ id: IdParam.openapi({ description: "Video project ID" }), conflict_id: IdParam.openapi({ description: "Conflict branch ID" }) }),
    body: jsonBody(ResolveVideoConflictRequest),
  },
  responses: { 200: jsonResponse(ResolveVideoConflictResponse, "The resolved branch and the project"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("video-project"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, conflict_id } = c.req.valid("param");
  const { resolution, expected_revision } = c.req.valid("json");
  const user = currentUser(c);
  const out = await db(c).transaction(async (tx) => {
    let project = await lockScopedResource(c, tx, "video-project");
    const [conflict] = await tx
      .select()
      .from(videoConflicts)
      .where(and(eq(videoConflicts.id, conflict_id), eq(videoConflicts.projectId, id)));
    if (!conflict) throw notFound("conflict branch");
    if (conflict.state !== "open") {
      throw new ApiError("not-editable", { detail: `${conflict.name} was already resolved (${conflict.resolution}, revision ${conflict.resolvedRevision}).` });
    }
    if (expected_revision !== project.headRevision) throw revisionConflict(project.headRevision, "video project");

    if (resolution === "apply_branch") {
      const operations = conflict.operations as VideoOperation[];
      const applied = applyOperations(project.document as VideoDocument, operations);
      if (!applied.ok) {
        const errors = applied.errors.map((e) => ({
          location: e.index === null ? "conflict.operations" : `conflict.operations[${e.index}]${e.field ? `.${e.field}` : ""}`,
          message: e.message,
        }));
        throw new ApiError("not-editable", {
          detail: `${conflict.name} no longer applies to revision ${project.headRevision}; keep head, or make a new batch.`,
          errors,
        });
      }
      project = await commitRevision(tx, project, {
        kind: "branch",
        mutationId: conflict.mutationId,
        baseRevision: project.headRevision,
        operations,
        inverse: applied.inverse,
        footprint: footprintOf(operations),
        document: applied.document,
        userId: user.id,
      });
    }
    const [resolved] = await tx
      .update(videoConflicts)
      .set({ state: "resolved", resolution, resolvedRevision: project.headRevision, resolvedBy: user.id, resolvedAt: sql`now()` })
      .where(eq(videoConflicts.id, conflict.id))
      .returning();
    await audit(tx, {
      ...auditActor(c),
      workspaceId: project.workspaceId,
      action: `video_project.conflict.${resolution}`,
      targetType: "video_conflict",
      targetId: conflict.id,
    });
    return { project, conflict: resolved };
  });
  return c.json(
    withSchema(c, ResolveVideoConflictResponse, { conflict: withSchema(c, VideoConflict, toConflict(out.conflict)), project: toProject(c, out.project) }),
    200,
  );
};
