import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { outboxJobs } from "../../db/schema";
import { openDb } from "../db/client";
import type { Env } from "../env";
import { drainQueue, emptyDrainResult, type ConsumerDefinition, type DrainResult } from "./consumer";
import type { JobKind } from "./kinds";
import { relayOutbox } from "./outbox";
import type { WorkerRuns } from "./queue-worker";

/**
 * One cron run of a consumer: for `budgetMs`, send its kind's outbox rows that have come due (a
 * publication's next attempt, scheduled a few seconds ahead) and long-poll its queue (SQS retries delayed
 * 5 s, 15 s, 45 s). So retries due within the minute run within the minute, not at the next cron.
 */
export async function drainForMinute<K extends JobKind, First>(
  env: Env,
  consumer: ConsumerDefinition<K, First>,
  /** `onlyJobIds`: relay only these rows (a test sharing the outbox with others). */
  opts: { budgetMs: number; waitSeconds: number; onlyJobIds?: string[] },
): Promise<DrainResult> {
  const deadline = Date.now() + opts.budgetMs;
  const total = emptyDrainResult();
  while (Date.now() < deadline - 1000) {
    const { db, close } = openDb(env);
    let secondsUntilDue: number | null = null;
    try {
      await relayOutbox(db, env, { kinds: [consumer.kind], ids: opts.onlyJobIds, due: true });
      // Wake up for the next row coming due rather than long-polling past it. How far off it is, by the
      // database's clock (which decides when it is due), not by comparing its time with this Worker's.
      [{ secondsUntilDue }] = await db
        .select({ secondsUntilDue: sql<number | null>`extract(epoch from min(${outboxJobs.nextAttemptAt}) - now())::float8` })
        .from(outboxJobs)
        .where(and(isNull(outboxJobs.sentAt), eq(outboxJobs.kind, consumer.kind), opts.onlyJobIds ? inArray(outboxJobs.id, opts.onlyJobIds) : undefined));
    } finally {
      await close();
    }
    const left = deadline - Date.now();
    const untilDue = secondsUntilDue === null ? Infinity : Math.max(0, Math.ceil(Number(secondsUntilDue)));
    const round = await drainQueue(env, consumer, { waitSeconds: Math.min(opts.waitSeconds, untilDue, Math.floor(left / 1000)), budgetMs: left });
    for (const key of Object.keys(total) as (keyof DrainResult)[]) total[key] += round[key];
  }
  return total;
}

/** A nudged drain starts jobs within this time (see the nudge below). */
export const NUDGE_START_WITHIN_MS = 20_000;

/**
 * A consumer's runs (lib/jobs/queue-worker.ts). In production the outbox relay's cron starts its minute (`POST
 * /drain?cron=1` through a service binding, lib/jobs/minute.ts): it drains for most of the minute. `POST /drain`
 * without `cron` drains on demand (the local launcher calls it in a loop, long-polling SQS; the group Worker that
 * committed work nudges it with `detach=1`). Each message is decoded and typed by kind, run once by its receipt,
 * retried with backoff and dead-lettered by drainQueue (lib/jobs/consumer.ts).
 */
export function consumerRuns<K extends JobKind, First>(consumer: ConsumerDefinition<K, First>): WorkerRuns {
  // Most of the minute until the next cron run (which overlaps it a little: receipts make that safe).
  const minute = (env: Env) => drainForMinute(env, consumer, { budgetMs: 55_000, waitSeconds: 10 });
  return {
    async drain(env, call) {
      // Awaited: the relay's scheduled run waits for it, and this invocation lives while that call is open.
      if (call.cron) return { body: { kind: consumer.kind, ...(await minute(env)) } };
      if (call.detachInto) {
        // A nudge: answer at once and work on in this Worker's own waitUntil (the caller's would cap it at 30 s
        // from its own response, and cut the work off when it ends). waitUntil itself lasts about 30 s, so jobs
        // are started within the first 20 s only, leaving the last one 10 s to finish; the rest are given back
        // at once for the next drain (drainQueue), instead of being killed mid-job and counted as failed.
        call.detachInto.waitUntil(drainQueue(env, consumer, { waitSeconds: 0, budgetMs: NUDGE_START_WITHIN_MS }));
        return { status: 202, body: { kind: consumer.kind, detached: true } };
      }
      const result = await drainQueue(env, consumer, { waitSeconds: call.waitSeconds, budgetMs: (call.waitSeconds + 5) * 1000 });
      return { body: { kind: consumer.kind, ...result } };
    },
    /** For a cron trigger of its own (none in wrangler.toml: the relay's cron calls `/drain?cron=1` instead). */
    scheduled: (env) => [minute(env)],
  };
}
