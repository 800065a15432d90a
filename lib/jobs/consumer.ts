import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, type Message } from "@aws-sdk/client-sqs";
import { jobReceipts } from "../../db/schema";
import { openDb, type Database, type Tx } from "../db/client";
import type { Env } from "../env";
import { isJobKind, type JobKind, type JobMessage } from "./kinds";
import { queueUrl, sqsClient } from "./sqs";

/** Attempts before SQS moves a message to the dead-letter queue (the queue's maxReceiveCount). */
export const MAX_ATTEMPTS = 8;

/**
 * Delay before the next attempt after `attempt` failed: 5 s, 15 s, 45 s, … capped at 15 min, ±20 %
 * jitter, so the first three attempts fall within 90 s of the first failure.
 */
export function retryDelaySeconds(attempt: number, random = Math.random()): number {
  const base = Math.min(5 * 3 ** Math.max(0, attempt - 1), 900);
  return Math.max(1, Math.round(base * (0.8 + 0.4 * random)));
}

export interface JobContext<P> {
  tx: Tx;
  db: Database;
  env: Env;
  job: JobMessage<P>;
  attempt: number;
}

export interface ConsumerDefinition<P> {
  kind: JobKind;
  /**
   * Runs inside the transaction that also records the job's receipt, so a job's database effects
   * happen exactly once however often SQS delivers it.
   */
  handle(ctx: JobContext<P>): Promise<void>;
  /** Called on the last attempt's failure, before SQS moves the message to the dead-letter queue. */
  onGiveUp?(ctx: { db: Database; env: Env; job: JobMessage<P>; error: unknown }): Promise<void>;
}

export interface DrainResult {
  received: number;
  processed: number;
  duplicates: number;
  failed: number;
}

function parseMessage(message: Message, kind: JobKind): JobMessage | null {
  try {
    const body = JSON.parse(message.Body ?? "");
    if (typeof body?.job_id !== "string" || !isJobKind(body.kind) || body.kind !== kind) return null;
    return body as JobMessage;
  } catch {
    return null;
  }
}

/**
 * Receive and process messages of one queue until it is empty or `budgetMs` has passed.
 * Delivery is at least once; the job id in `job_receipts` turns redeliveries into no-ops.
 */
export async function drainQueue<P>(env: Env, consumer: ConsumerDefinition<P>, opts: { waitSeconds?: number; budgetMs?: number } = {}): Promise<DrainResult> {
  const sqs = sqsClient(env);
  const { db, close } = openDb(env);
  const url = queueUrl(env, consumer.kind);
  const deadline = Date.now() + (opts.budgetMs ?? 20_000);
  const result: DrainResult = { received: 0, processed: 0, duplicates: 0, failed: 0 };
  try {
    while (Date.now() < deadline) {
      const waitSeconds = Math.max(0, Math.min(opts.waitSeconds ?? 0, Math.floor((deadline - Date.now()) / 1000)));
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds, AttributeNames: ["All"] }),
      );
      if (Messages.length === 0) break;
      result.received += Messages.length;
      for (const message of Messages) {
        const outcome = await processOne(db, env, consumer, message);
        result[outcome]++;
        if (outcome !== "failed") await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
        else {
          const attempt = Number(message.Attributes?.ApproximateReceiveCount ?? 1);
          await sqs.send(
            new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: retryDelaySeconds(attempt) }),
          );
        }
      }
    }
    return result;
  } finally {
    sqs.destroy();
    await close();
  }
}

async function processOne<P>(db: Database, env: Env, consumer: ConsumerDefinition<P>, message: Message): Promise<"processed" | "duplicates" | "failed"> {
  const job = parseMessage(message, consumer.kind) as JobMessage<P> | null;
  if (!job) {
    // Not ours or not readable: let it run out its receives into the dead-letter queue for inspection.
    console.error(JSON.stringify({ msg: "unreadable job message", kind: consumer.kind, messageId: message.MessageId }));
    return "failed";
  }
  const attempt = Number(message.Attributes?.ApproximateReceiveCount ?? 1);
  try {
    return await db.transaction(async (tx) => {
      const claimed = await tx
        .insert(jobReceipts)
        .values({ jobId: job.job_id, kind: job.kind, state: "done", attempts: attempt })
        .onConflictDoNothing()
        .returning({ jobId: jobReceipts.jobId });
      if (claimed.length === 0) return "duplicates" as const;
      await consumer.handle({ tx, db, env, job, attempt });
      return "processed" as const;
    });
  } catch (error) {
    console.error(JSON.stringify({ msg: "job failed", kind: job.kind, jobId: job.job_id, attempt, error: String((error as Error)?.message ?? error) }));
    if (attempt >= MAX_ATTEMPTS) {
      await consumer.onGiveUp?.({ db, env, job, error }).catch(() => {});
    }
    return "failed";
  }
}
