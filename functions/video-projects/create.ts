import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, type AppEnv } from "../../lib/http/context";
import { idempotent, IdempotencyKeyHeader } from "../../lib/http/idempotency";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { VideoDocument } from "../../lib/video/document";
import { emptyVideoDocument, sampleVideoDocument } from "../../lib/video/sample";
import { toProject, VideoProjectResponse } from "./schemas";
import { createProject } from "../../lib/video/store";
import { inBody, workspaceRole } from "../../lib/http/access";

export const CreateVideoProjectRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    name: z.string().trim().min(1).max(200),
    document: VideoDocument.optional().openapi({ example: sampleVideoDocument(), description: "Left out: an empty project (1080×1920, 30 fps, no tracks)" }),
  })
  .openapi("CreateVideoProjectRequest");

export const route = createRoute({
  method: "post",
  path: "/video-projects",
  operationId: "createVideoProject",
  tags: ["video-projects"],
  summary: "Create a video project (editor or higher)",
  description: "The project starts at `head_revision` 1. Accepts an Idempotency-Key so a retried request never creates a second project.",
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateVideoProjectRequest) },
  responses: { 201: jsonResponse(VideoProjectResponse, "The new project"), ...problems(400, 401, 403, 404, 409, 413, 422) },
});

export const access = workspaceRole("editor", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  return idempotent(c, { workspaceId: body.workspace_id, operation: "video-projects.create", request: body }, async (tx) => {
    const row = await createProject(tx, { workspaceId: body.workspace_id, name: body.name, document: body.document ?? emptyVideoDocument(), userId: user.id });
    await audit(tx, { ...auditActor(c), workspaceId: body.workspace_id, action: "video_project.create", targetType: "video_project", targetId: row.id });
    return { status: 201, body: toProject(c, row) };
  });
};
