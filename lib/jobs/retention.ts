import { sql, type SQL } from "drizzle-orm";
import { SESSION_IDLE_SECONDS } from "../auth/sessions";
import type { Database } from "../db/client";

/**
 * How long bookkeeping rows are kept. Idempotency keys: 24 h (CONTRACT.md §2). Finished outbox rows: a
 * week when done, two when dead (administrators look at those). Receipts: longer than SQS keeps any
 * message (14 days at most, dead-letter queues included), so no redelivery can outlive its receipt; and
 * longer than the outbox rows they settle, so a row never lacks its receipt.
 */
export const RETENTION = {
  idempotencyKeysHours: 24,
  doneJobsDays: 7,
  deadJobsDays: 14,
  receiptsDays: 15,
  /** WebAuthn challenges live 5 minutes; ended browser sessions are kept a day past their end. */
  challengesHours: 1,
  endedSessionsDays: 1,
} as const;

export interface SweepOptions {
  /** Rows deleted per statement: short transactions, short locks. */
  batchSize?: number;
  /** Statements per table per sweep: a backlog is worked off over several runs, never in one long one. */
  maxBatches?: number;
}

export interface SweepResult {
  idempotencyKeys: number;
  outboxJobs: number;
  jobReceipts: number;
  webauthnChallenges: number;
  browserSessions: number;
}

/** Delete what `select` picks (by ctid, at most `batchSize` rows a statement) until none are left or the batches run out. */
async function sweep(db: Database, table: SQL, where: SQL, opts: Required<SweepOptions>): Promise<number> {
  let total = 0;
  for (let i = 0; i < opts.maxBatches; i++) {
    const result = await db.execute(sql`delete from ${table} where ctid = any(array(select ctid from ${table} where ${where} limit ${opts.batchSize}))`);
    const deleted = result.rowCount ?? 0;
    total += deleted;
    if (deleted < opts.batchSize) break;
  }
  return total;
}

/** One retention pass over idempotency keys, finished outbox rows, job receipts, challenges and ended sessions (bounded by `opts`). */
export async function sweepRetention(db: Database, options: SweepOptions = {}): Promise<SweepResult> {
  const opts = { batchSize: options.batchSize ?? 500, maxBatches: options.maxBatches ?? 10 };
  const hours = (n: number) => sql`now() - make_interval(hours => ${n})`;
  const days = (n: number) => sql`now() - make_interval(days => ${n})`;
  return {
    idempotencyKeys: await sweep(db, sql`idempotency_keys`, sql`created_at < ${hours(RETENTION.idempotencyKeysHours)}`, opts),
    outboxJobs: await sweep(
      db,
      sql`outbox_jobs`,
      sql`finished_at is not null and ((state = 'done' and finished_at < ${days(RETENTION.doneJobsDays)}) or (state = 'dead' and finished_at < ${days(RETENTION.deadJobsDays)}))`,
      opts,
    ),
    jobReceipts: await sweep(db, sql`job_receipts`, sql`completed_at < ${days(RETENTION.receiptsDays)}`, opts),
    webauthnChallenges: await sweep(db, sql`webauthn_challenges`, sql`expires_at < ${hours(RETENTION.challengesHours)}`, opts),
    browserSessions: await sweep(
      db,
      sql`browser_sessions`,
      sql`coalesce(revoked_at, least(expires_at, last_seen_at + make_interval(secs => ${SESSION_IDLE_SECONDS}))) < ${days(RETENTION.endedSessionsDays)}`,
      opts,
    ),
  };
}
