import { sql } from "drizzle-orm";
import { SESSION_IDLE_SECONDS } from "../auth/sessions";
import type { Database } from "../db/client";
import { type Bounds, daysAgo, deleteWhere, hoursAgo } from "./batch";
import { RETENTION } from "./periods";

/** Idempotency keys, finished outbox rows, job receipts, WebAuthn challenges, OAuth states, ended invitations and browser sessions, usage events past any usage period. */
export async function sweepBookkeeping(db: Database, opts: Bounds) {
  return {
    idempotencyKeys: await deleteWhere(db, sql`idempotency_keys`, sql`created_at < ${hoursAgo(RETENTION.idempotencyKeysHours)}`, opts),
    outboxJobs: await deleteWhere(
      db,
      sql`outbox_jobs`,
      sql`finished_at is not null and ((state = 'done' and finished_at < ${daysAgo(RETENTION.doneJobsDays)}) or (state = 'dead' and finished_at < ${daysAgo(RETENTION.deadJobsDays)}))`,
      opts,
    ),
    jobReceipts: await deleteWhere(db, sql`job_receipts`, sql`completed_at < ${daysAgo(RETENTION.receiptsDays)}`, opts),
    webauthnChallenges: await deleteWhere(db, sql`webauthn_challenges`, sql`expires_at < ${hoursAgo(RETENTION.challengesHours)}`, opts),
    oauthStates: await deleteWhere(db, sql`oauth_states`, sql`expires_at < ${hoursAgo(RETENTION.oauthStatesHours)}`, opts),
    invitations: await deleteWhere(db, sql`invitations`, sql`expires_at < ${daysAgo(RETENTION.invitationsDays)}`, opts),
    usageEvents: await deleteWhere(db, sql`usage_events`, sql`created_at < ${daysAgo(RETENTION.usageEventsDays)}`, opts),
    browserSessions: await deleteWhere(
      db,
      sql`browser_sessions`,
      sql`coalesce(revoked_at, least(expires_at, last_seen_at + make_interval(secs => ${SESSION_IDLE_SECONDS}))) < ${daysAgo(RETENTION.endedSessionsDays)}`,
      opts,
    ),
  };
}
