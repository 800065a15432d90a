import { eq } from "drizzle-orm";
import { media, type Role } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import type { AppContext } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { requireRole } from "../../lib/http/workspace-guard";
import type { MediaRow } from "../../lib/media/item";

/**
 * The item and the caller's role in its workspace: 404 when there is no such item or the caller is not
 * a member of its workspace (never revealing which), 403 when the role is below `min`. With `lock`, the
 * row stays locked until the surrounding transaction ends.
 */
export async function loadMediaFor(q: Queryable, userId: string, id: string, min: Role, opts: { lock?: boolean } = {}): Promise<MediaRow> {
  const query = q.select().from(media).where(eq(media.id, id));
  const [row] = opts.lock ? await query.for("update") : await query;
  if (!row) throw notFound("media item");
  await requireRole(q, userId, row.workspaceId, min, "media item");
  return row;
}

/** The media bucket binding; without it uploads and downloads cannot work (503, nothing changes). */
export function mediaBucket(c: AppContext): R2Bucket {
  const bucket = c.env?.MEDIA_BUCKET;
  if (!bucket) {
    throw new ApiError("service-unavailable", {
      detail: "Media storage is not configured: bind an R2 bucket as MEDIA_BUCKET (wrangler.toml [[r2_buckets]]).",
    });
  }
  return bucket;
}
