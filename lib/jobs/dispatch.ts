import type { Context } from "hono";
import { openDb, type Database } from "../db/client";
import { type AppEnv, defer } from "../http/context";
import type { JobKind } from "./kinds";
import { nudgeConsumers } from "./nudge";
import { relayOutbox, sendLeased } from "./outbox";

/**
 * After the transaction that wrote the jobs has committed, try to send them at once so work starts
 * without waiting for the relay's next round. If SQS is unreachable they stay in the outbox and the
 * relay Worker sends them later: nothing is lost either way.
 */
export function dispatchAfterCommit(c: Context<AppEnv>, jobIds: string[]): void {
  if (jobIds.length === 0) return;
  sendThenNudge(c, (db) => relayOutbox(db, c.env, { ids: jobIds }));
}

/** The same for jobs written under a send lease (`leased`): already this request's to send, so no taking first. */
export function dispatchLeasedAfterCommit(c: Context<AppEnv>, jobs: Parameters<typeof sendLeased>[2]): void {
  if (jobs.length === 0) return;
  sendThenNudge(c, (db) => sendLeased(db, c.env, jobs));
}

/** Send after the response, then nudge the consumers of what went out, so the work starts now rather than at the next cron (lib/jobs/nudge.ts). */
function sendThenNudge(c: Context<AppEnv>, send: (db: Database) => Promise<{ kinds: Iterable<JobKind> }>): void {
  const { db, close } = openDb(c.env);
  defer(
    c,
    send(db)
      .finally(close)
      .then((sent) => nudgeConsumers(c.env, sent.kinds)),
  );
}
