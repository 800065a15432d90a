import { withDatabase } from "../lib/db/client";
import type { Env } from "../lib/env";
import { nudgeConsumers } from "../lib/jobs/nudge";
import { relayOutbox } from "../lib/jobs/outbox";
import type { JobKind } from "../lib/jobs/kinds";
import { startEveryMinute } from "../lib/jobs/minute";
import { queueWorker } from "../lib/jobs/queue-worker";
import { errorFields, logEvent } from "../lib/log";
import { type RetentionReport, runRetention } from "../lib/retention/run";

/** Retention sweeps run at most this often per isolate (the local pump calls /drain every second). */
const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

/**
 * Sends outbox rows that the request fast path could not (SQS down, crash before send), and once a
 * minute removes history and bookkeeping past its retention (lib/retention), in bounded batches.
 * Its cron trigger is Herald's only one: each minute it also starts every other Worker's minute through their
 * CRON_* service bindings (lib/jobs/minute.ts), side by side with its own run.
 */
async function relay(env: Env, budgetMs: number) {
  const deadline = Date.now() + budgetMs;
  const total: { sent: number; failed: number; swept?: RetentionReport } = { sent: 0, failed: 0 };
  const kinds = new Set<JobKind>();
  return withDatabase(env, async (db) => {
    while (Date.now() < deadline) {
      const { sent, failed, kinds: sentKinds } = await relayOutbox(db, env);
      total.sent += sent;
      total.failed += failed;
      for (const kind of sentKinds) kinds.add(kind);
      if (sent === 0) break;
    }
    await nudgeConsumers(env, kinds);
    if (Date.now() - lastSweep >= SWEEP_EVERY_MS) {
      lastSweep = Date.now();
      // A failed sweep must not fail the relay: the next one catches up.
      total.swept = await runRetention(db).catch((err) => {
        logEvent("error", "retention sweep failed", errorFields(err));
        return undefined;
      });
    }
    return total;
  });
}

export default queueWorker({
  drain: async (env) => ({ body: await relay(env, 10_000) }),
  scheduled(env) {
    lastSweep = 0; // the cron is the sweep's schedule
    // Its own run beside every other Worker's minute (two waitUntils: a failed relay must not end the invocation under the others' calls).
    return [relay(env, 50_000), startEveryMinute(env)];
  },
});
