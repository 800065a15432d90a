import { ReceiveMessageCommand, SendMessageCommand, type Message, type SQSClient } from "@aws-sdk/client-sqs";
import { eq, sql, type SQL } from "drizzle-orm";
import { jobReceipts } from "../../db/schema";
import { openDb, type Database, type Queryable, type Tx } from "../db/client";
import type { Env } from "../env";
import { errorFields, logEvent } from "../log";
import { inOneTransaction, type BatchItem } from "../db/batch";
import { insertWhere } from "../db/insert-where";
import { MAX_ATTEMPTS, retryDelaySeconds } from "./retry-policy";
import { jobStateStatement, recordJobState } from "./job-state";
import { isJobKind, type JobKind, type JobMessage, type JobPayloads } from "./kinds";
import { DEFAULT_VISIBILITY, deleteMessages, keepHidden, releaseUnstarted, type VisibilityTiming } from "./message-visibility";
import { deadLetterUrl, queueUrl, sharedSqsClient } from "./sqs";

export interface JobContext<P, First = unknown> {
  /** The receipt's transaction in "transaction" mode; the database itself in "steps" mode. */
  tx: Tx | Database;
  db: Database;
  env: Env;
  job: JobMessage<P>;
  attempt: number;
  /** In "steps" mode, what `firstRead` read. */
  first?: First;
}

/** A consumer of jobs of kind K (its payload is JobPayloads[K]); First is what its `firstRead` reads. */
export interface ConsumerDefinition<K extends JobKind, First = unknown> {
  kind: K;
  /**
   * "transaction" (default): `handle` runs inside the transaction that also records the job's
   * receipt, so its database effects happen exactly once however often SQS delivers it.
   * "steps": for jobs that call the outside world (publishing). `handle` commits its own steps and
   * must be safe to run again; the receipt is written when it returns, so a redelivery after that is skipped.
   */
  mode?: "transaction" | "steps";
  /**
   * "steps" mode: the read a job starts with (one drizzle statement), sent in the same request as the check
   * for the job's receipt, one round trip fewer per job; `handle` gets its result as `first`.
   */
  firstRead?(q: Queryable, job: JobMessage<JobPayloads[K]>): PromiseLike<First>;
  /** In "steps" mode it may answer what to commit with the receipt (StepsFinish). */
  handle(ctx: JobContext<JobPayloads[K], First>): Promise<void | StepsFinish>;
  /** Called on the last attempt's failure, before SQS moves the message to the dead-letter queue. */
  onGiveUp?(ctx: { db: Database; env: Env; job: JobMessage<JobPayloads[K]>; error: unknown }): Promise<void>;
}

/**
 * A "steps" job's last writes, committed in the receipt's request, before it: one request fewer per job. The
 * receipt (and the job's state) is written only if `receiptIf` holds after them; if it does not (a race), the
 * consumer runs `otherwise` and then writes the receipt as usual, so a job is never marked done before its
 * work is.
 */
export interface StepsFinish {
  statements(q: Queryable): BatchItem[];
  receiptIf: SQL;
  otherwise(): Promise<void>;
}

/** Commits a StepsFinish outside a consumer, where there is no receipt to write: its statements, then `otherwise` unless `receiptIf` holds. */
export async function commitFinish(db: Database, finish: StepsFinish | void): Promise<void> {
  if (!finish) return;
  const results = await inOneTransaction(db, (q) => [...finish.statements(q), sql`select (${finish.receiptIf}) as done`]);
  const [check] = (results[results.length - 1] as { rows: { done: boolean }[] }).rows;
  if (!check.done) await finish.otherwise();
}

export interface DrainResult {
  received: number;
  processed: number;
  duplicates: number;
  failed: number;
  /** Received but not started (the budget ran out): given back for redelivery, no attempt spent. */
  released: number;
}

export const emptyDrainResult = (): DrainResult => ({ received: 0, processed: 0, duplicates: 0, failed: 0, released: 0 });

function parseMessage(message: Message, kind: JobKind): JobMessage | null {
  try {
    const body = JSON.parse(message.Body ?? "");
    if (typeof body?.job_id !== "string" || !isJobKind(body.kind) || body.kind !== kind) return null;
    return body as JobMessage;
  } catch {
    return null;
  }
}

export interface DrainOptions {
  /** Long-poll wait for the first receive, in seconds (SQS allows up to 20). */
  waitSeconds?: number;
  /**
   * Time within which a job may be started. Checked before each message: one not started by then is given
   * back at once (no attempt spent). A job started just before it runs to its end, so a caller whose time is
   * capped (a nudge's `waitUntil`) leaves room for one job after it.
   */
  budgetMs?: number;
  /** Visibility delay after a failed attempt; the schedule above unless a caller needs another. */
  retryDelay?: (attempt: number) => number;
  /**
   * How long a received message stays hidden, and how often a running job's message is hidden again. Given, its
   * `visibilitySeconds` is set on each receive; else the queue's own visibility timeout applies on receive (an
   * operator's or a test's setting) and extensions follow DEFAULT_VISIBILITY, which assumes queues of 60 s.
   */
  visibility?: VisibilityTiming;
}

/**
 * Receive and process messages of one queue until it is empty or `budgetMs` has passed.
 * Delivery is at least once; the job id in `job_receipts` turns redeliveries into no-ops.
 * The budget is the Worker's own wall time (how long this call may run), not a decision about shared state.
 */
export async function drainQueue<K extends JobKind, First>(env: Env, consumer: ConsumerDefinition<K, First>, opts: DrainOptions = {}): Promise<DrainResult> {
  const sqs = sharedSqsClient(env);
  const { db, close } = openDb(env);
  const url = queueUrl(env, consumer.kind);
  const visibility = opts.visibility ?? DEFAULT_VISIBILITY;
  const deadline = Date.now() + (opts.budgetMs ?? 20_000);
  const result = emptyDrainResult();
  try {
    while (Date.now() < deadline) {
      const waitSeconds = Math.max(0, Math.min(opts.waitSeconds ?? 0, Math.floor((deadline - Date.now()) / 1000)));
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: waitSeconds,
          VisibilityTimeout: opts.visibility?.visibilitySeconds,
          AttributeNames: ["All"],
        }),
      );
      if (Messages.length === 0) break;
      const receivedAt = Date.now();
      // Nor one that waited behind the batch so long its visibility may lapse before the first extension lands.
      const startBy = Math.min(deadline, receivedAt + (visibility.visibilitySeconds - visibility.heartbeatSeconds) * 1000);
      result.received += Messages.length;
      const handled: Message[] = [];
      for (const message of Messages) {
        if (Date.now() >= startBy) break;
        const hidden = keepHidden(sqs, url, message, receivedAt, visibility);
        try {
          const outcome = await processOne(db, env, consumer, message);
          if (outcome.kind === "failed") await scheduleRetry(sqs, env, consumer.kind, url, message, outcome, opts.retryDelay ?? retryDelaySeconds);
          result[outcome.kind]++;
        } finally {
          hidden.stop();
        }
        handled.push(message);
      }
      const unstarted = Messages.slice(handled.length);
      const released = await releaseUnstarted(sqs, url, unstarted);
      result.released += unstarted.length;
      // Deleted together once all are handled (one request, not one per message). A message handled but not
      // yet deleted when a consumer dies comes back, and its job's receipt makes it a no-op.
      await deleteMessages(sqs, url, [...handled, ...released]);
    }
    return result;
  } finally {
    await close();
  }
}

type Outcome = { kind: "processed" | "duplicates" } | { kind: "failed"; job: JobMessage | null; attempt: number; error: string };

/** Attempt number: retries carry it in the body; a crash redelivery (message never deleted) adds receives. */
function attemptOf(job: JobMessage, message: Message): number {
  return (job.attempt ?? 1) + Math.max(0, Number(message.Attributes?.ApproximateReceiveCount ?? 1) - 1);
}

async function processOne<K extends JobKind, First>(db: Database, env: Env, consumer: ConsumerDefinition<K, First>, message: Message): Promise<Outcome> {
  const job = parseMessage(message, consumer.kind) as JobMessage<JobPayloads[K]> | null;
  if (!job) {
    logEvent("error", "unreadable job message", { kind: consumer.kind, message_id: message.MessageId, size: message.Body?.length ?? 0 });
    return { kind: "failed", job: null, attempt: MAX_ATTEMPTS, error: "unreadable message" };
  }
  const attempt = attemptOf(job, message);
  try {
    if (consumer.mode === "steps") return { kind: await runSteps(db, env, consumer, job, attempt) };
    const kind = await db.transaction(async (tx) => {
      const claimed = await tx
        .insert(jobReceipts)
        .values({ jobId: job.job_id, kind: job.kind, state: "done", attempts: attempt })
        .onConflictDoNothing()
        .returning({ jobId: jobReceipts.jobId });
      if (claimed.length === 0) return "duplicates" as const;
      await consumer.handle({ tx, db, env, job, attempt });
      await recordJobState(tx, job.job_id, "done", attempt);
      return "processed" as const;
    });
    return { kind };
  } catch (err) {
    // drizzle wraps driver errors: the cause says what actually went wrong.
    const cause = (err as { cause?: Error })?.cause;
    const error = String((err as Error)?.message ?? err).slice(0, 300) + (cause ? ` (${String(cause.message ?? cause).slice(0, 200)})` : "");
    // The message (kept with the job for administrators) may quote content: the log gets codes only.
    logEvent("error", "job failed", { kind: job.kind, job_id: job.job_id, request_id: job.request_id, attempt, ...errorFields(err) });
    if (attempt < MAX_ATTEMPTS) await recordJobState(db, job.job_id, "retrying", attempt, error).catch(() => {});
    if (attempt >= MAX_ATTEMPTS) {
      await consumer.onGiveUp?.({ db, env, job, error: err }).catch(() => {});
      await recordJobState(db, job.job_id, "dead", attempt, error).catch(() => {});
      // A receipt marks it settled, so a later redelivery or a restart's requeue does not start it over.
      // (To retry it on purpose, delete the receipt and redrive the message from the dead-letter queue.)
      await db
        .insert(jobReceipts)
        .values({ jobId: job.job_id, kind: job.kind, state: "failed", attempts: attempt, lastError: error })
        .onConflictDoNothing()
        .catch(() => {});
    }
    return { kind: "failed", job, attempt, error };
  }
}

async function runSteps<K extends JobKind, First>(
  db: Database,
  env: Env,
  consumer: ConsumerDefinition<K, First>,
  job: JobMessage<JobPayloads[K]>,
  attempt: number,
): Promise<"processed" | "duplicates"> {
  const [[seen], first] = await inOneTransaction(db, (q) => [
    q.select({ jobId: jobReceipts.jobId }).from(jobReceipts).where(eq(jobReceipts.jobId, job.job_id)),
    ...(consumer.firstRead ? [consumer.firstRead(q, job)] : []),
  ]);
  if (seen) return "duplicates";
  const finish = await consumer.handle({ tx: db, db, env, job, attempt, first });
  const receipt = { jobId: job.job_id, kind: job.kind, state: "done" as const, attempts: attempt };
  if (finish) {
    const results = await inOneTransaction(db, (q) => [
      ...finish.statements(q),
      sql`${insertWhere(jobReceipts, receipt, finish.receiptIf)} on conflict do nothing`,
      jobStateStatement(q, job.job_id, "done", attempt, undefined, finish.receiptIf),
    ]);
    // Not written: the condition failed, or (harmlessly) a duplicate delivery wrote the receipt first.
    if ((results[results.length - 2] as { rowCount: number | null }).rowCount) return "processed";
    await finish.otherwise();
  }
  // The receipt and the job's state commit together, in one request.
  await inOneTransaction(db, (q) => [q.insert(jobReceipts).values(receipt).onConflictDoNothing(), jobStateStatement(q, job.job_id, "done", attempt)]);
  return "processed";
}

/**
 * A failed job goes back on its queue as a new message carrying the next attempt number, delayed by
 * the backoff; after the last attempt it goes to the dead-letter queue with the error. (We do not
 * rely on SQS receive counts for this: the local emulator counts a visibility change as a receive.)
 * The queue's own redrive policy remains the backstop for a consumer that dies mid-job.
 */
async function scheduleRetry(
  sqs: SQSClient,
  env: Env,
  kind: JobKind,
  url: string,
  message: Message,
  outcome: Extract<Outcome, { kind: "failed" }>,
  retryDelay: (attempt: number) => number,
): Promise<void> {
  if (!outcome.job || outcome.attempt >= MAX_ATTEMPTS) {
    const body = outcome.job ? JSON.stringify({ ...outcome.job, attempt: outcome.attempt, last_error: outcome.error }) : (message.Body ?? "");
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterUrl(env, kind), MessageBody: body }));
    return;
  }
  const next: JobMessage = { ...outcome.job, attempt: outcome.attempt + 1 };
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(next), DelaySeconds: Math.min(900, retryDelay(outcome.attempt)) }));
}
