import { and, eq, lte, sql } from "drizzle-orm";
import { publications } from "../../db/schema";
import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import { audit } from "../audit";
import { startPublishing } from "./start";

/**
 * Start every scheduled publication whose run time (scheduled_at plus its drawn random delay) has
 * come. Rows are locked with SKIP LOCKED, so schedulers running at once never start one twice.
 * Returns the jobs written to the outbox.
 */
export async function startDuePublications(db: Database, limit = 100): Promise<string[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(publications)
      .where(and(eq(publications.status, "scheduled"), lte(publications.runAt, sql`now()`)))
      .orderBy(publications.runAt)
      .limit(limit)
      .for("update", { skipLocked: true });
    const jobIds: string[] = [];
    for (const row of due) {
      try {
        jobIds.push((await startPublishing(tx, row, { bumpRevision: false })).jobId);
        await audit(tx, { actorUserId: null, workspaceId: row.workspaceId, action: "publication.publish.scheduled", targetType: "publication", targetId: row.id });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Nothing to publish to (every destination removed): it cannot run, so it fails visibly.
        await tx.update(publications).set({ status: "failed", updatedAt: sql`now()` }).where(eq(publications.id, row.id));
      }
    }
    return jobIds;
  });
}
