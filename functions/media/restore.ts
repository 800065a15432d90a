import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { media } from "../../db/schema";
import { audit } from "../../lib/audit";
import { publicBaseUrl } from "../../lib/env";
import { auditActor, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { toMediaItem } from "../../lib/media/item";
import { MediaIdParams, MediaItem } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/media/{id}/restore",
  operationId: "restoreMedia",
  tags: ["media"],
  summary: "Take a media item out of the trash (editor or above)",
  description:
    "Clears `trashed_at`, `trash_reason` and `purge_after`; the item returns to the lifecycle it had. Restoring an item not in the trash changes nothing.",
  request: { params: MediaIdParams },
  responses: { 200: jsonResponse(MediaItem, "The restored item"), ...problems(400, 401, 403, 404, 422) },
});

export const access = workspaceRole("editor", resourceInPath("media"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const row = await db(c).transaction(async (tx) => {
    const current = await lockScopedResource(c, tx, "media");
    if (!current.trashedAt) return current;
    const [restored] = await tx
      .update(media)
      .set({ trashedAt: null, trashReason: null, purgeAfter: null, purgeBlockedReason: null, purgeBlockedAt: null, updatedAt: sql`now()` })
      .where(eq(media.id, id))
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId: current.workspaceId, action: "media.restore", targetType: "media", targetId: id });
    return restored;
  });
  return c.json(withSchema(c, MediaItem, toMediaItem(row, publicBaseUrl(c.env, c.req.url))), 200);
};
