import { and, eq, sql } from "drizzle-orm";
import { uploadCheckpoints } from "../../db/schema/upload-checkpoints";
import type { Database } from "../db/client";
import type { UploadCheckpoint } from "../providers/types";
import { LEASE_SECONDS } from "./rules";
import type { AttemptIds } from "./store";

/**
 * Durable progress of a rendition's chunked uploads (db/schema/upload-checkpoints.ts). Saving renews the
 * delivery's lease in the same statement and writes only while this attempt still holds the rendition, like
 * every other write of a delivery (./store.ts): a late writer changes nothing, and is told so (false).
 */

export async function loadCheckpoint(db: Database, renditionId: string, key: string): Promise<UploadCheckpoint | null> {
  const [row] = await db
    .select({ checkpoint: uploadCheckpoints.checkpoint })
    .from(uploadCheckpoints)
    .where(and(eq(uploadCheckpoints.renditionId, renditionId), eq(uploadCheckpoints.mediaKey, key)));
  return row ? (row.checkpoint as unknown as UploadCheckpoint) : null;
}

/** Save with the lease renewed; false when another attempt holds the rendition now. */
export async function saveCheckpoint(db: Database, ids: AttemptIds, key: string, checkpoint: UploadCheckpoint): Promise<boolean> {
  const result = await db.execute(sql`
    with held as (
      update renditions set lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
      where id = ${ids.id} and current_attempt_id = ${ids.attemptId}
      returning id
    )
    insert into upload_checkpoints (rendition_id, media_key, checkpoint, updated_at)
    select id, ${key}, ${JSON.stringify(checkpoint)}::jsonb, now() from held
    on conflict (rendition_id, media_key) do update set checkpoint = excluded.checkpoint, updated_at = now()
    returning rendition_id`);
  return result.rows.length > 0;
}

/** Forget an upload (its video failed at the platform): the next round starts a new one. Fenced like saving. */
export async function clearCheckpoint(db: Database, ids: AttemptIds, key: string): Promise<void> {
  await db.execute(sql`
    delete from upload_checkpoints where rendition_id = ${ids.id} and media_key = ${key}
      and exists (select 1 from renditions where id = ${ids.id} and current_attempt_id = ${ids.attemptId})`);
}
