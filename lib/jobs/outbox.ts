import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { and, eq, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import { outboxJobs } from "../../db/schema";
import { inOneTransaction } from "../db/batch";
import type { Database, Queryable } from "../db/client";
import type { Env } from "../env";
import { newId } from "../ids";
import { relayBackoffMs } from "./retry-policy";
import type { DeadLetterPayloads, JobKind, JobMessage, JobPayloads } from "./kinds";
import { deadLetterUrl, queueUrl, sharedSqsClient } from "./sqs";

export interface EnqueueOptions<DeadLetter extends boolean = boolean> {
  /**
   * Not before now + this many seconds by the database's clock (`now()`), never the Worker's: what to use for
   * "retry in a while". Wins over `notBefore`.
   */
  delaySeconds?: number;
  /**
   * Not before this absolute time. Only for a time given from outside (a platform's rate-limit reset, a
   * user's schedule): a time computed from the Worker's clock would let its drift decide; use `delaySeconds`.
   */
  notBefore?: Date;
  /** The id of the request that caused the job (`c.get("requestId")`): carried into its message and its consumer's logs. */
  requestId?: string | null;
  /** Send to the kind's dead-letter queue: a record of work given up on. */
  deadLetter?: DeadLetter;
  /**
   * Written under a send lease, for the caller to send right after its commit (`sendLeased`) without taking
   * the row first; if it never does (it died), the relay sends the row once the lease lapses.
   */
  leased?: boolean;
}

/** Write a job in the caller's transaction; it is sent only if that transaction commits. */
export async function enqueueJob<K extends JobKind, DeadLetter extends boolean = false>(
  tx: Queryable,
  kind: K,
  workspaceId: string | null,
  payload: OutboxPayload<K, DeadLetter>,
  opts: EnqueueOptions<DeadLetter> = {},
): Promise<string> {
  const row = outboxRow(kind, workspaceId, payload, opts);
  await tx.insert(outboxJobs).values(row);
  return row.id;
}

/** A job's payload: its kind's (JobPayloads), or a dead-letter record's (DeadLetterPayloads). */
export type OutboxPayload<K extends JobKind, DeadLetter extends boolean> = DeadLetter extends true ? DeadLetterPayloads[K] : JobPayloads[K];

/** A new job's row of `outbox_jobs`, as outboxRow makes it. */
export interface NewOutboxRow<K extends JobKind, Payload> {
  id: string;
  kind: K;
  workspaceId: string | null;
  payload: Payload;
  deadLetter: boolean;
  sendAttempts: number;
  requestId: string | null;
  nextAttemptAt?: SQL | Date;
  sendLeaseUntil?: SQL;
}

/**
 * The outbox row of a new job, for a caller that writes it in a batch (lib/db/batch.ts). The first two forms
 * name the payload's type before the options are read, so a compiled statement's `placeholder` in its place
 * takes that type (lib/db/compiled.ts); the last is for a caller generic in both.
 */
export function outboxRow<K extends JobKind>(
  kind: K,
  workspaceId: string | null,
  payload: JobPayloads[K],
  opts?: EnqueueOptions<false>,
): NewOutboxRow<K, JobPayloads[K]>;
export function outboxRow<K extends JobKind>(
  kind: K,
  workspaceId: string | null,
  payload: DeadLetterPayloads[K],
  opts: EnqueueOptions<true>,
): NewOutboxRow<K, DeadLetterPayloads[K]>;
export function outboxRow<K extends JobKind, DeadLetter extends boolean>(
  kind: K,
  workspaceId: string | null,
  payload: OutboxPayload<K, DeadLetter>,
  opts?: EnqueueOptions<DeadLetter>,
): NewOutboxRow<K, OutboxPayload<K, DeadLetter>>;
export function outboxRow<K extends JobKind, DeadLetter extends boolean>(
  kind: K,
  workspaceId: string | null,
  payload: OutboxPayload<K, DeadLetter>,
  opts: EnqueueOptions<DeadLetter> = {},
): NewOutboxRow<K, OutboxPayload<K, DeadLetter>> {
  const row: NewOutboxRow<K, OutboxPayload<K, DeadLetter>> = {
    id: newId("job"),
    kind,
    workspaceId,
    payload,
    deadLetter: opts.deadLetter ?? false,
    sendAttempts: 0,
    requestId: opts.requestId ?? null,
    ...(opts.delaySeconds !== undefined ? { nextAttemptAt: secondsFromNow(opts.delaySeconds) } : opts.notBefore ? { nextAttemptAt: opts.notBefore } : {}),
    ...(opts.leased ? { sendLeaseUntil: sendLeaseFromNow } : {}),
  };
  return row satisfies PgInsertValue<typeof outboxJobs>;
}

/** `now() + seconds` by the database's clock (fractions kept; never negative). */
const secondsFromNow = (seconds: number) => sql`now() + make_interval(secs => ${Math.max(0, seconds)})`;

export interface RelayResult {
  sent: number;
  failed: number;
  /** Kinds of the jobs sent to their work queues (whose consumers may be nudged). */
  kinds: JobKind[];
}

type OutboxRow = typeof outboxJobs.$inferSelect;

/** Not being sent by a relay by id (or that relay's lease has lapsed: it died). */
const notLeased = or(isNull(outboxJobs.sendLeaseUntil), lt(outboxJobs.sendLeaseUntil, sql`now()`));

/** How long a relay sending just-committed rows by id holds them (without a transaction) before another may. */
export const SEND_LEASE_SECONDS = 60;
const sendLeaseFromNow = secondsFromNow(SEND_LEASE_SECONDS);

/**
 * Send pending outbox rows to SQS. Concurrent relays never send the same row at once: a relay of every due
 * row locks them (SKIP LOCKED) in a transaction while it sends; a relay of just-committed rows by id (right
 * after a request's commit) takes them with one statement that sets their send lease, so no other relay
 * takes them while it sends, and needs no interactive transaction (no WebSocket).
 * Either way a failed send is rescheduled with backoff. A row can still be sent twice if the process dies
 * between SQS accepting it and recording that (or a send outlasts the lease); consumers de-duplicate on the
 * job id for exactly that reason.
 */
export async function relayOutbox(
  database: Database,
  env: Env,
  /** `ids`: these rows, due or not (just committed), unless `due` says otherwise; else every due row (of `kinds`). */
  opts: { ids?: string[]; kinds?: JobKind[]; due?: boolean; limit?: number } = {},
): Promise<RelayResult> {
  const sqs = sharedSqsClient(env);
  if (opts.ids) return relayByIds(database, sqs, env, { ...opts, ids: opts.ids });
  return database.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(outboxJobs)
      .where(
        and(isNull(outboxJobs.sentAt), lte(outboxJobs.nextAttemptAt, sql`now()`), notLeased, opts.kinds ? inArray(outboxJobs.kind, opts.kinds) : undefined),
      )
      .orderBy(outboxJobs.createdAt)
      .limit(opts.limit ?? 50)
      .for("update", { skipLocked: true });
    const round = await sendInOrder(sqs, env, due);
    for (const statement of settleRound(tx, round)) await statement;
    return round.result;
  });
}

async function relayByIds(
  database: Database,
  sqs: SQSClient,
  env: Env,
  opts: { ids: string[]; kinds?: JobKind[]; due?: boolean; limit?: number },
): Promise<RelayResult> {
  if (opts.ids.length === 0) return { sent: 0, failed: 0, kinds: [] };
  // Rows another relay holds in its transaction are skipped (it is sending them); the rest are taken at once.
  const free = database
    .select({ id: outboxJobs.id })
    .from(outboxJobs)
    .where(
      and(
        inArray(outboxJobs.id, opts.ids),
        isNull(outboxJobs.sentAt),
        notLeased,
        opts.due ? lte(outboxJobs.nextAttemptAt, sql`now()`) : undefined,
        opts.kinds ? inArray(outboxJobs.kind, opts.kinds) : undefined,
      ),
    )
    .orderBy(outboxJobs.createdAt)
    .limit(opts.limit ?? 50)
    .for("update", { skipLocked: true });
  const taken = await database
    .update(outboxJobs)
    .set({ sendLeaseUntil: sendLeaseFromNow })
    .where(and(inArray(outboxJobs.id, free), isNull(outboxJobs.sentAt), notLeased))
    .returning();
  taken.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return sendTaken(database, sqs, env, taken);
}

/** Send jobs this caller wrote under a send lease (`leased`), in order, once the write has committed. */
export function sendLeased(database: Database, env: Env, jobs: Sendable[]): Promise<RelayResult> {
  return sendTaken(database, sharedSqsClient(env), env, jobs);
}

async function sendTaken(database: Database, sqs: SQSClient, env: Env, taken: Sendable[]): Promise<RelayResult> {
  const round = await sendInOrder(sqs, env, taken);
  // What was not attempted after a failure is given back at once, for the next round.
  await inOneTransaction(database, (q) => [
    ...settleRound(q, round),
    ...(round.untried.length ? [q.update(outboxJobs).set({ sendLeaseUntil: null }).where(inArray(outboxJobs.id, round.untried))] : []),
  ]);
  return round.result;
}

/** What sending a row needs of it. */
type Sendable = Pick<OutboxRow, "id" | "kind" | "workspaceId" | "payload" | "deadLetter" | "sendAttempts"> & Partial<Pick<OutboxRow, "requestId">>;

interface Round {
  sent: Sendable[];
  failure?: { job: Sendable; error: unknown };
  untried: string[];
  result: RelayResult;
}

/** Send rows one by one; SQS is probably unreachable after a failure, so the rest wait for the next round. */
async function sendInOrder(sqs: SQSClient, env: Env, rows: Sendable[]): Promise<Round> {
  const round: Round = { sent: [], untried: [], result: { sent: 0, failed: 0, kinds: [] } };
  const kinds = new Set<JobKind>();
  for (const [i, job] of rows.entries()) {
    const message: JobMessage = {
      job_id: job.id,
      kind: job.kind as JobKind,
      workspace_id: job.workspaceId,
      payload: job.payload,
      ...(job.requestId ? { request_id: job.requestId } : {}),
    };
    try {
      const url = job.deadLetter ? deadLetterUrl(env, job.kind as JobKind) : queueUrl(env, job.kind as JobKind);
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message) }));
      round.sent.push(job);
      if (!job.deadLetter) kinds.add(job.kind as JobKind);
    } catch (error) {
      round.failure = { job, error };
      round.untried = rows.slice(i + 1).map((r) => r.id);
      break;
    }
  }
  round.result = { sent: round.sent.length, failed: round.failure ? 1 : 0, kinds: [...kinds] };
  return round;
}

/** What a round did, as statements for one commit: the rows sent, and the failed one rescheduled with backoff. */
function settleRound(q: Queryable, round: Round) {
  const statements = [];
  if (round.sent.length) {
    statements.push(
      q
        .update(outboxJobs)
        .set({
          sentAt: sql`now()`,
          sendAttempts: sql`${outboxJobs.sendAttempts} + 1`,
          lastError: null,
          updatedAt: sql`now()`,
          // A dead-letter record is finished once it is in the dead-letter queue. A consumer may already have
          // said where the job is (it can run before this commits): that is kept.
          state: sql`case when ${outboxJobs.deadLetter} then 'dead' when ${outboxJobs.state} = 'pending' then 'queued' else ${outboxJobs.state} end`,
          finishedAt: sql`case when ${outboxJobs.deadLetter} then now() else ${outboxJobs.finishedAt} end`,
          sendLeaseUntil: null,
        })
        .where(
          inArray(
            outboxJobs.id,
            round.sent.map((j) => j.id),
          ),
        ),
    );
  }
  if (round.failure) {
    const { job, error } = round.failure;
    const attempts = job.sendAttempts + 1;
    statements.push(
      q
        .update(outboxJobs)
        .set({
          sendAttempts: attempts,
          lastError: String((error as Error)?.name ?? error).slice(0, 200),
          nextAttemptAt: secondsFromNow(relayBackoffMs(attempts) / 1000),
          sendLeaseUntil: null,
        })
        .where(eq(outboxJobs.id, job.id)),
    );
  }
  return statements;
}
