import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { publicBaseUrl } from "../../lib/env";
import { enforcePlanLimits } from "../../lib/billing/enforce";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { detectMedia } from "../../lib/media/detect";
import { cleanFilename } from "../../lib/media/filename";
import { toMediaItem } from "../../lib/media/item";
import { mediaMaxBytes, MULTIPART_OVERHEAD_BYTES } from "../../lib/media/limits";
import { createMedia } from "../../lib/media/store";
import { parseTagList, tagProblem } from "../../lib/media/tags";
import { mediaBucket } from "./lookup";
import { MediaItem, UploadMediaForm } from "./schemas";
import { inForm, workspaceRole } from "../../lib/http/access";
import { requireFormBody } from "../../lib/http/multipart";
import { capRequestBody } from "../../lib/http/body-gate";

const tooLarge = (max: number) =>
  new ApiError("payload-too-large", { detail: `Media uploads are limited to ${max} bytes (MEDIA_MAX_BYTES); nothing was stored.` });

/**
 * The app's JSON body limit skips multipart, so uploads get their own, from MEDIA_MAX_BYTES. Other
 * bodies were already limited (and read) by the app's JSON gate; the route answers them 415.
 */
const uploadLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!/^multipart\/form-data\b/i.test(c.req.header("content-type") ?? "")) return next();
  const max = mediaMaxBytes(c.env ?? {});
  await capRequestBody(c, max + MULTIPART_OVERHEAD_BYTES, () => tooLarge(max));
  return next();
};

export const route = createRoute({
  method: "post",
  path: "/media",
  operationId: "uploadMedia",
  tags: ["media"],
  summary: "Upload an image, video or audio file to a workspace's media library (editor or above)",
  description:
    "The type and the facts of the file (MIME type, size, dimensions, duration, frame rate, codecs) are detected from its bytes, " +
    "never from its name or declared type. Anything that is not an image, video or audio file gets 415 and nothing is stored; " +
    "a file over the configured limit (MEDIA_MAX_BYTES, 25 MiB by default) gets 413.",
  middleware: [uploadLimit, requireFormBody] as const,
  request: {
    body: { content: { "multipart/form-data": { schema: UploadMediaForm } }, required: true },
  },
  responses: { 201: jsonResponse(MediaItem, "The stored item"), ...problems(400, 401, 403, 404, 413, 415, 422, 503) },
});

export const access = workspaceRole("editor", inForm());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const form = c.req.valid("form");
  const bucket = mediaBucket(c);
  const max = mediaMaxBytes(c.env);
  if (form.file.size > max) throw tooLarge(max);
  const tags = parseTagList(form.tags ?? "");
  const tagError = tagProblem(tags);
  if (tagError) throw new ApiError("validation-error", { detail: tagError, errors: [{ location: "body.tags", message: tagError }] });

  const limitCheck = [{ limit: "storage_bytes" as const, adding: form.file.size }];
  // Early, so bytes the plan cannot hold are never stored; checked again in the transaction that records them.
  await enforcePlanLimits(db(c), c.env, { workspaceId: form.workspace_id }, limitCheck);
  const bytes = new Uint8Array(await form.file.arrayBuffer());
  const detection = await detectMedia(bytes);
  if (!detection.ok) throw new ApiError("unsupported-media-type", { detail: `${detection.reason} Upload an image, video or audio file; nothing was stored.` });

  const row = await createMedia(db(c), bucket, {
    workspaceId: form.workspace_id,
    ...auditActor(c),
    bytes,
    detected: detection.media,
    originalFilename: cleanFilename(form.file.name),
    altText: form.alt_text?.trim() || null,
    tags,
    retentionClass: form.retention_class,
    guard: (tx) => enforcePlanLimits(tx, c.env, { workspaceId: form.workspace_id }, limitCheck),
  });
  const base = publicBaseUrl(c.env, c.req.url);
  c.header("location", `${base}/media/${row.id}`);
  return c.json(withSchema(c, MediaItem, toMediaItem(row, base)), 201);
};
