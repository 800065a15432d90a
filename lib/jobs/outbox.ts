import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import { outboxJobs } from "../../db/schema";
import type { Database, Queryable } from "../db/client";
import type { Env } from "../env";
import { newId } from "../ids";
import type { JobKind, JobMessage } from "./kinds";
import { deadLetterUrl, queueUrl, sqsClient } from "./sqs";

export interface EnqueueOptions {
  /** Not before this time (a retry scheduled for later). */
  notBefore?: Date;
  /** Send to the kind's dead-letter queue: a record of work given up on. */
  deadLetter?: boolean;
}

/** Write a job in the caller's transaction; it is sent only if that transaction commits. */
export async function enqueueJob(tx: Queryable, kind: JobKind, workspaceId: string | null, payload: object, opts: EnqueueOptions = {}): Promise<string> {
  const id = newId("job");
  await tx.insert(outboxJobs).values({ id, kind, workspaceId, payload, deadLetter: opts.deadLetter ?? false, ...(opts.notBefore ? { nextAttemptAt: opts.notBefore } : {}) });
  return id;
}

/** Relay retries back off exponentially (1 s, 2 s, 4 s … capped at 5 min) with jitter. */
export function relayBackoffMs(attempts: number, random = Math.random()): number {
  const base = Math.min(1000 * 2 ** Math.max(0, attempts - 1), 300_000);
  return Math.round(base * (0.5 + random / 2));
}

export interface RelayResult {
  sent: number;
  failed: number;
  /** Kinds of the jobs sent to their work queues (whose consumers may be nudged). */
  kinds: JobKind[];
}

/**
 * Send pending outbox rows to SQS. Rows are locked (SKIP LOCKED) so concurrent relays never send the
 * same row at once; a failed send is rescheduled. A row can still be sent twice if the process dies
 * between SQS accepting it and the commit; consumers de-duplicate on the job id for exactly that reason.
 */
export async function relayOutbox(
  database: Database,
  env: Env,
  /** `ids`: these rows, due or not (just committed), unless `due` says otherwise; else every due row (of `kinds`). */
  opts: { ids?: string[]; kinds?: JobKind[]; due?: boolean; limit?: number } = {},
): Promise<RelayResult> {
  const sqs = sqsClient(env);
  try {
    return await database.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(outboxJobs)
        .where(
          and(
            isNull(outboxJobs.sentAt),
            opts.ids ? inArray(outboxJobs.id, opts.ids) : undefined,
            (opts.due ?? !opts.ids) ? lte(outboxJobs.nextAttemptAt, sql`now()`) : undefined,
            opts.kinds ? inArray(outboxJobs.kind, opts.kinds) : undefined,
          ),
        )
        .orderBy(outboxJobs.createdAt)
        .limit(opts.limit ?? 50)
        .for("update", { skipLocked: true });
      let sent = 0;
      let failed = 0;
      const kinds = new Set<JobKind>();
      for (const job of due) {
        const message: JobMessage = { job_id: job.id, kind: job.kind as JobKind, workspace_id: job.workspaceId, payload: job.payload };
        try {
          const url = job.deadLetter ? deadLetterUrl(env, job.kind as JobKind) : queueUrl(env, job.kind as JobKind);
          await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message) }));
          await tx
            .update(outboxJobs)
            // A dead-letter record is finished once it is in the dead-letter queue.
            .set({ sentAt: sql`now()`, sendAttempts: job.sendAttempts + 1, lastError: null, updatedAt: sql`now()`, ...(job.deadLetter ? { state: "dead", finishedAt: sql`now()` } : { state: "queued" }) })
            .where(eq(outboxJobs.id, job.id));
          sent++;
          if (!job.deadLetter) kinds.add(job.kind as JobKind);
        } catch (err) {
          const attempts = job.sendAttempts + 1;
          await tx
            .update(outboxJobs)
            .set({
              sendAttempts: attempts,
              lastError: String((err as Error)?.name ?? err).slice(0, 200),
              nextAttemptAt: new Date(Date.now() + relayBackoffMs(attempts)),
            })
            .where(eq(outboxJobs.id, job.id));
          failed++;
          // SQS is probably unreachable: leave the rest for the next round instead of failing each in turn.
          break;
        }
      }
      return { sent, failed, kinds: [...kinds] };
    });
  } finally {
    sqs.destroy();
  }
}
