import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type Bounds, daysAgo, deleteWhere } from "./batch";
import { RETENTION } from "./periods";

/**
 * History whose rows simply age out, each by an indexed time column: delivery attempts, repost attempts and
 * activity, outbound events (their deliveries going with them), and audit events (kept longest).
 */
export async function sweepHistory(db: Database, opts: Bounds) {
  return {
    deliveryAttempts: await deleteWhere(db, sql`delivery_attempts`, sql`started_at < ${daysAgo(RETENTION.deliveryAttemptsDays)}`, opts),
    repostAttempts: await deleteWhere(db, sql`repost_attempts`, sql`created_at < ${daysAgo(RETENTION.repostAttemptsDays)}`, opts),
    repostActivity: await deleteWhere(db, sql`repost_activity`, sql`at < ${daysAgo(RETENTION.repostActivityDays)}`, opts),
    outboundEvents: await deleteWhere(db, sql`outbound_events`, sql`created_at < ${daysAgo(RETENTION.outboundEventsDays)}`, opts),
    auditEvents: await deleteWhere(db, sql`audit_events`, sql`occurred_at < ${daysAgo(RETENTION.auditEventsDays)}`, opts),
  };
}
