import { and, asc, eq, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import { media, mediaPurgedObjects, mediaUsages } from "../../db/schema";
import { logEvent, type LogValue } from "../log";
import { audit } from "../audit";
import type { Database } from "../db/client";
import { databaseNow } from "../db/clock";

export interface PurgeOptions {
  now?: Date;
  /** Items looked at per run (each is its own short transaction). */
  limit?: number;
  /** An item found in use is looked at again only after this long. */
  recheckAfterMs?: number;
}

export interface PurgeReport {
  purged: { id: string; workspaceId: string; reason: "trash" | "expired" }[];
  /** Due, but still used by a publication, design or template: left in place, marked for attention. */
  kept: { id: string; workspaceId: string; usages: number }[];
  /** Objects whose bytes could not be removed yet; retried on the next run. */
  pendingObjects: number;
}

const HOUR_MS = 60 * 60 * 1000;

const log = ({ msg, ...fields }: { msg: string } & Record<string, LogValue>) => logEvent("warn", msg, fields);

/** Remove stored bytes of rows already deleted; a tombstone stays (with the error) until this succeeds. */
async function removeObjects(db: Database, bucket: R2Bucket, keys: string[]): Promise<number> {
  let pending = 0;
  for (const key of keys) {
    try {
      await bucket.delete(key);
      await db.delete(mediaPurgedObjects).where(eq(mediaPurgedObjects.objectKey, key));
    } catch (error) {
      pending++;
      await db
        .update(mediaPurgedObjects)
        .set({ attempts: sql`${mediaPurgedObjects.attempts} + 1`, lastError: String((error as Error)?.message ?? error).slice(0, 500) })
        .where(eq(mediaPurgedObjects.objectKey, key));
    }
  }
  return pending;
}

/** Due items: trash past purge_after and temporary uploads past expires_at (each through its partial index). */
async function dueItems(db: Database, now: Date, limit: number, recheckBefore: Date): Promise<string[]> {
  const notRecentlyKept = or(isNull(media.purgeBlockedAt), lt(media.purgeBlockedAt, recheckBefore));
  const trash = await db
    .select({ id: media.id })
    .from(media)
    .where(and(isNotNull(media.trashedAt), lte(media.purgeAfter, now), notRecentlyKept))
    .orderBy(asc(media.purgeAfter))
    .limit(limit);
  const expired = await db
    .select({ id: media.id })
    .from(media)
    .where(and(isNull(media.trashedAt), eq(media.retentionClass, "temporary"), lte(media.expiresAt, now), notRecentlyKept))
    .orderBy(asc(media.expiresAt))
    .limit(Math.max(0, limit - trash.length));
  return [...trash, ...expired].map((r) => r.id);
}

/**
 * The media purge (queues/media-purge.ts runs it on a schedule): deletes trashed items whose
 * purge_after has passed and temporary uploads whose expires_at has passed, with their stored bytes.
 * An item still in use is never removed: it is left, with purge_blocked_reason "in_use", logged, and
 * looked at again later. Each item is decided under its row lock, the lock lib/media/usage.ts takes
 * before it records a use, so a use recorded concurrently is never lost to a purge.
 */
export async function purgeMedia(db: Database, bucket: R2Bucket, opts: PurgeOptions = {}): Promise<PurgeReport> {
  const now = opts.now ?? (await databaseNow(db));
  const report: PurgeReport = { purged: [], kept: [], pendingObjects: 0 };

  // Bytes a previous run could not remove (or that a crash left behind) go first.
  const leftover = await db.select({ key: mediaPurgedObjects.objectKey }).from(mediaPurgedObjects).orderBy(asc(mediaPurgedObjects.purgedAt)).limit(100);
  report.pendingObjects += await removeObjects(
    db,
    bucket,
    leftover.map((r) => r.key),
  );

  const ids = await dueItems(db, now, opts.limit ?? 200, new Date(now.getTime() - (opts.recheckAfterMs ?? HOUR_MS)));
  for (const id of ids) {
    const outcome = await db.transaction(async (tx) => {
      // Skip a row someone holds (a use being recorded, another purge): the next run sees it.
      const [row] = await tx.select().from(media).where(eq(media.id, id)).for("update", { skipLocked: true });
      if (!row) return null;
      const dueTrash = row.trashedAt !== null && row.purgeAfter !== null && row.purgeAfter <= now;
      const dueExpiry = row.trashedAt === null && row.retentionClass === "temporary" && row.expiresAt !== null && row.expiresAt <= now;
      if (!dueTrash && !dueExpiry) return null; // restored or kept since it was listed
      const [{ usages }] = await tx
        .select({ usages: sql<number>`count(*)::int` })
        .from(mediaUsages)
        .where(and(eq(mediaUsages.mediaId, id), eq(mediaUsages.workspaceId, row.workspaceId)));
      if (usages > 0) {
        await tx.update(media).set({ purgeBlockedReason: "in_use", purgeBlockedAt: now }).where(eq(media.id, id));
        return { kind: "kept" as const, row, usages };
      }
      await tx.delete(media).where(eq(media.id, id));
      await tx.insert(mediaPurgedObjects).values({ objectKey: row.objectKey, mediaId: id, workspaceId: row.workspaceId }).onConflictDoNothing();
      await audit(tx, { actorUserId: null, workspaceId: row.workspaceId, action: "media.purge", targetType: "media", targetId: id });
      return { kind: "purged" as const, row, reason: dueTrash ? ("trash" as const) : ("expired" as const) };
    });
    if (!outcome) continue;
    if (outcome.kind === "kept") {
      report.kept.push({ id, workspaceId: outcome.row.workspaceId, usages: outcome.usages });
      log({ msg: "media purge kept an item that is still in use", media_id: id, workspace_id: outcome.row.workspaceId, usages: outcome.usages });
      continue;
    }
    report.purged.push({ id, workspaceId: outcome.row.workspaceId, reason: outcome.reason });
    report.pendingObjects += await removeObjects(db, bucket, [outcome.row.objectKey]);
  }
  return report;
}
