import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { media } from "../../db/schema";
import { audit } from "../../lib/audit";
import { publicBaseUrl } from "../../lib/env";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { toMediaItem } from "../../lib/media/item";
import { temporaryExpiry } from "../../lib/media/limits";
import { normalizeTags, searchDocument, tagProblem } from "../../lib/media/tags";
import { MediaIdParams, MediaItem, UpdateMediaRequest } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "patch",
  path: "/media/{id}",
  operationId: "updateMedia",
  tags: ["media"],
  summary: "Change a media item's alt text, tags, favourite mark or retention (editor or above)",
  description: "Only the fields given change. `tags` replaces the item's tags; each is stored trimmed and lower-cased.",
  request: { params: MediaIdParams, body: jsonBody(UpdateMediaRequest) },
  responses: { 200: jsonResponse(MediaItem, "The changed item"), ...problems(400, 401, 403, 404, 413, 422) },
});

export const access = workspaceRole("editor", resourceInPath("media"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  if (Object.values(body).every((v) => v === undefined)) {
    throw new ApiError("validation-error", {
      detail: "Give at least one of alt_text, tags, is_favorite, retention_class.",
      errors: [{ location: "body", message: "No field to change" }],
    });
  }
  const tags = body.tags === undefined ? undefined : normalizeTags(body.tags);
  const tagError = tags && tagProblem(tags);
  if (tagError) throw new ApiError("validation-error", { detail: tagError, errors: [{ location: "body.tags", message: tagError }] });

  const row = await db(c).transaction(async (tx) => {
    const current = await lockScopedResource(c, tx, "media");
    const altText = body.alt_text === undefined ? current.altText : body.alt_text?.trim() || null;
    const nextTags = tags ?? current.tags;
    const retention = body.retention_class ?? current.retentionClass;
    const retentionChanged = retention !== current.retentionClass;
    const [updated] = await tx
      .update(media)
      .set({
        altText,
        tags: nextTags,
        searchText: searchDocument({ originalFilename: current.originalFilename, altText, tags: nextTags }),
        isFavorite: body.is_favorite ?? current.isFavorite,
        retentionClass: retention,
        // A temporary item lives 7 days from when it became temporary; a library item does not expire.
        ...(retentionChanged ? { expiresAt: retention === "temporary" ? temporaryExpiry() : null } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(media.id, id))
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId: current.workspaceId, action: "media.update", targetType: "media", targetId: id });
    return updated;
  });
  return c.json(withSchema(c, MediaItem, toMediaItem(row, publicBaseUrl(c.env, c.req.url))), 200);
};
