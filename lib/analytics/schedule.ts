import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { analyticsCoverage, socialAccounts } from "../../db/schema";
import type { Database } from "../db/client";
import { databaseNow } from "../db/clock";
import { enqueueJob } from "../jobs/outbox";

/** How long a queued account is held before it may be queued again (its job should have run by then). */
export const CLAIM_MS = 10 * 60_000;
/** Accounts queued per scheduler pass: bounded work; the rest follow on the next minute. */
export const SCHEDULE_BATCH = 100;

/**
 * The scheduled refresh: queue a collection job for each active account on an analytics platform whose
 * `next_eligible_at` has passed (or that has not been collected yet), claiming it for CLAIM_MS in the same
 * transaction so the next pass does not queue it twice. Returns the job ids.
 */
export async function queueDueAccounts(db: Database, at?: Date, opts: { limit?: number; workspaceId?: string } = {}): Promise<string[]> {
  const now = at ?? (await databaseNow(db));
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: socialAccounts.id, workspaceId: socialAccounts.workspaceId })
      .from(socialAccounts)
      .leftJoin(analyticsCoverage, eq(analyticsCoverage.accountId, socialAccounts.id))
      .where(
        and(
          isNull(socialAccounts.disconnectedAt),
          eq(socialAccounts.isActive, true),
          inArray(socialAccounts.platform, ["mastodon", "bluesky"]),
          or(isNull(analyticsCoverage.accountId), lte(analyticsCoverage.nextEligibleAt, now)),
          // A failed account waits out its backoff (the platform's Retry-After included).
          or(isNull(analyticsCoverage.backoffUntil), lte(analyticsCoverage.backoffUntil, now)),
          // One workspace only: tests sharing the database with others.
          opts.workspaceId ? eq(socialAccounts.workspaceId, opts.workspaceId) : undefined,
        ),
      )
      .orderBy(sql`${analyticsCoverage.nextEligibleAt} nulls first`, socialAccounts.id)
      .limit(opts.limit ?? SCHEDULE_BATCH)
      .for("update", { of: socialAccounts, skipLocked: true });
    const jobIds: string[] = [];
    const until = new Date(now.getTime() + CLAIM_MS);
    for (const a of due) {
      await tx
        .insert(analyticsCoverage)
        .values({ accountId: a.id, workspaceId: a.workspaceId, nextEligibleAt: until })
        .onConflictDoUpdate({ target: analyticsCoverage.accountId, set: { nextEligibleAt: until, updatedAt: now } });
      jobIds.push(await enqueueJob(tx, "analytics.refresh", a.workspaceId, { account_id: a.id }));
    }
    return jobIds;
  });
}
