import { openDb, type Database } from "../db/client";
import type { Env } from "../env";
import type { JobKind } from "./kinds";
import { nudgeConsumers } from "./nudge";
import { relayOutbox, sendLeased } from "./outbox";

/**
 * What sending after the commit needs of the request that wrote the jobs: its bindings, and a way to keep working
 * after the answer is sent (a Worker's `waitUntil`; lib/http/context.ts's `afterCommit(c)` gives a request's, logging
 * what fails).
 */
export interface AfterCommit {
  env: Env;
  waitUntil: (work: Promise<unknown>) => void;
}

/**
 * After the transaction that wrote the jobs has committed, try to send them at once so work starts
 * without waiting for the relay's next round. If SQS is unreachable they stay in the outbox and the
 * relay Worker sends them later: nothing is lost either way.
 */
export function dispatchAfterCommit(after: AfterCommit, jobIds: string[]): void {
  if (jobIds.length === 0) return;
  sendThenNudge(after, (db) => relayOutbox(db, after.env, { ids: jobIds }));
}

/** The same for jobs written under a send lease (`leased`): already this request's to send, so no taking first. */
export function dispatchLeasedAfterCommit(after: AfterCommit, jobs: Parameters<typeof sendLeased>[2]): void {
  if (jobs.length === 0) return;
  sendThenNudge(after, (db) => sendLeased(db, after.env, jobs));
}

/** Send after the response, then nudge the consumers of what went out, so the work starts now rather than at the next cron (lib/jobs/nudge.ts). */
function sendThenNudge({ env, waitUntil }: AfterCommit, send: (db: Database) => Promise<{ kinds: Iterable<JobKind> }>): void {
  const { db, close } = openDb(env);
  waitUntil(
    send(db)
      .finally(close)
      .then((sent) => nudgeConsumers(env, sent.kinds)),
  );
}
