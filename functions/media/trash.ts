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
import { TRASH_RETENTION_DAYS } from "../../lib/media/limits";
import { MediaIdParams, MediaItem } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { lockScopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "post",
  path: "/media/{id}/trash",
  operationId: "trashMedia",
  tags: ["media"],
  summary: "Move a media item to the trash (editor or above)",
  description:
    `Sets \`trashed_at\`, \`trash_reason: "manual"\` and \`purge_after\` ${TRASH_RETENTION_DAYS} days on; the purge deletes it (and its bytes) after that ` +
    "unless it is restored or still in use. Trashing an item already in the trash changes nothing.",
  request: { params: MediaIdParams },
  responses: { 200: jsonResponse(MediaItem, "The trashed item"), ...problems(400, 401, 403, 404, 422) },
});

export const access = workspaceRole("editor", resourceInPath("media"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const row = await db(c).transaction(async (tx) => {
    const current = await lockScopedResource(c, tx, "media");
    if (current.trashedAt) return current;
    const [trashed] = await tx
      .update(media)
      .set({
        trashedAt: sql`now()`,
        trashReason: "manual",
        purgeAfter: sql`now() + make_interval(days => ${TRASH_RETENTION_DAYS})`,
        purgeBlockedReason: null,
        purgeBlockedAt: null,
        updatedAt: sql`now()`,
      })
      .where(eq(media.id, id))
      .returning();
    await audit(tx, { ...auditActor(c), workspaceId: current.workspaceId, action: "media.trash", targetType: "media", targetId: id });
    return trashed;
  });
  return c.json(withSchema(c, MediaItem, toMediaItem(row, publicBaseUrl(c.env, c.req.url))), 200);
};
