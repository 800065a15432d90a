import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { BoundedJson, IdParam, RevisionField, WorkspaceIdField } from "../../lib/schemas/common";
import { VideoProjectMutationResponse } from "./schemas";

/** CONTRACT.md §5: `{kind: "set" | "remove", target, path, value?}`; `set` needs a value. */
export const VideoMutationOperation = z
  .object({
    kind: z.enum(["set", "remove"]),
    target: z.string().min(1).max(200).openapi({ description: "The element changed: a track or clip id" }),
    path: z
      .string()
      .max(1000)
      .regex(/^(\/[^/]*)*$/, "Expected a JSON Pointer such as /style/color")
      .openapi({ description: "JSON Pointer inside the target; empty for the whole target", example: "/style/color" }),
    value: BoundedJson(65_536).optional().openapi({ description: "The new value (kind `set`); any JSON, at most 64 KiB" }),
  })
  .superRefine((op, ctx) => {
    if (op.kind === "set" && op.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: "A set operation needs a value" });
  })
  .openapi("VideoMutationOperation");

export const ApplyVideoMutationsRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    base_revision: RevisionField.openapi({ description: "The head revision the batch was made against" }),
    mutation_id: z.string().min(1).max(200).openapi({ description: "Client-chosen id; a repeated id answers `duplicate`" }),
    operations: z.array(VideoMutationOperation).min(1).max(500),
  })
  .openapi("ApplyVideoMutationsRequest");

export const route = createRoute({
  method: "post",
  path: "/video-projects/{id}/mutations",
  tags: ["video-projects"],
  summary: "Apply a versioned mutation batch",
  description:
    "A batch based on head applies. A stale batch disjoint from the intervening changes is rebased; one that overlaps them creates a named conflict branch and leaves head unchanged (still a 200). Needs the editor role.",
  request: { params: z.object({ id: IdParam.openapi({ description: "Video project ID" }) }), body: jsonBody(ApplyVideoMutationsRequest) },
  responses: { 200: jsonResponse(VideoProjectMutationResponse, "The outcome and the project"), ...problems(400, 401, 403, 404, 409, 413, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("json");
  await requireRole(db(c), currentUser(c).id, workspace_id, "editor");
  throw notImplemented("POST /video-projects/{id}/mutations", "issue 4");
};
