import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** Who did what to which thing, and when. Never content, emails, secrets or provider payloads. */
export const auditEvents = pgTable(
  "audit_events",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    id: text("id").notNull().unique(),
    occurredAt: ts("occurred_at").notNull().defaultNow(),
    actorUserId: text("actor_user_id"),
    workspaceId: text("workspace_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    /** `success` or `denied` (a refused attempt worth keeping, e.g. a failed sign-in). */
    outcome: text("outcome").notNull().default("success"),
    /** How the actor was authenticated: user, token, session, or system (no person). */
    actorKind: text("actor_kind").notNull().default("user"),
    requestId: text("request_id"),
  },
  // The listing is newest first by (occurred_at, seq), filtered or not; the retention sweep walks occurred_at.
  (t) => [
    index("audit_events_occurred_idx").on(t.occurredAt, t.seq),
    index("audit_events_workspace_idx").on(t.workspaceId, t.occurredAt, t.seq),
    index("audit_events_actor_idx").on(t.actorUserId, t.occurredAt, t.seq),
    index("audit_events_action_idx").on(t.action, t.occurredAt, t.seq),
  ],
);

/** Idempotency-Key store (CONTRACT.md §2): scoped to caller, workspace and operation; kept 24 h. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    userId: text("user_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    operation: text("operation").notNull(),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state").$type<"in_flight" | "done">().notNull(),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    /** An in-flight claim older than this was abandoned (its request died) and may be taken over. */
    lockedUntil: ts("locked_until").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.workspaceId, t.operation, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/** Transactional outbox: a job row is written in the same transaction as the change that causes it. */
export const outboxJobs = pgTable(
  "outbox_jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    workspaceId: text("workspace_id"),
    payload: jsonb("payload").notNull(),
    /** A record of work given up on, for the kind's dead-letter queue rather than its work queue. */
    deadLetter: boolean("dead_letter").notNull().default(false),
    createdAt: ts("created_at").notNull().defaultNow(),
    sentAt: ts("sent_at"),
    sendAttempts: integer("send_attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
    /**
     * Set while a relay sends the row outside a transaction (just-committed rows, sent by id): no other relay
     * takes it until then. Cleared when the send is recorded, failed or given back.
     */
    sendLeaseUntil: ts("send_lease_until"),
    /** Why the last send to SQS failed (the relay's error). */
    lastError: text("last_error"),
    /**
     * Where the job is, as its consumer last said: `pending` (not sent yet), `queued` (sent), `retrying`
     * (an attempt failed, another is scheduled), `done`, `dead` (given up; see the dead-letter queue).
     */
    state: text("state").$type<JobState>().notNull().default("pending"),
    /** Consumer attempts so far. */
    attempts: integer("attempts").notNull().default(0),
    /** Why the consumer's last attempt failed (for administrators: GET /admin/jobs). */
    jobError: text("job_error"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    /** When it reached `done` or `dead`; the retention sweep removes finished rows some days later. */
    finishedAt: ts("finished_at"),
    /** The id of the request that caused the job (x-request-id), carried into its message and its consumer's logs. */
    requestId: text("request_id"),
  },
  (t) => [
    index("outbox_jobs_pending_idx").on(t.nextAttemptAt).where(sql`${t.sentAt} is null`),
    index("outbox_jobs_state_idx").on(t.state, t.createdAt, t.id),
    index("outbox_jobs_finished_idx").on(t.finishedAt).where(sql`${t.finishedAt} is not null`),
  ],
);

export type JobState = "pending" | "queued" | "retrying" | "done" | "dead";

/** What consumers have done with each job id, so a redelivered message is recognised. */
export const jobReceipts = pgTable(
  "job_receipts",
  {
    jobId: text("job_id").primaryKey(),
    kind: text("kind").notNull(),
    state: text("state").$type<"done" | "failed">().notNull(),
    attempts: integer("attempts").notNull().default(1),
    completedAt: ts("completed_at").notNull().defaultNow(),
    lastError: text("last_error"),
  },
  (t) => [index("job_receipts_completed_idx").on(t.completedAt)],
);

/**
 * How far each watermark-driven retention sweep has got (lib/retention): the (time, id) of the last row it
 * handled, so a run starts where the last one stopped instead of re-reading rows it chose to keep.
 */
export const retentionWatermarks = pgTable("retention_watermarks", {
  sweep: text("sweep").primaryKey(),
  positionAt: ts("position_at").notNull(),
  positionId: text("position_id").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});
