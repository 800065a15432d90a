import { withDatabase, type Database } from "../db/client";
import type { Env } from "../env";
import { nudgeConsumers } from "./nudge";
import { relayOutbox } from "./outbox";
import type { WorkerRuns } from "./queue-worker";

/**
 * A scheduler's runs (lib/jobs/queue-worker.ts): each minute (`POST /drain?cron=1` from the outbox relay's cron,
 * lib/jobs/minute.ts; or on `POST /drain` with DRAIN_SECRET, as the local launcher does: the same run) it finds due
 * work, writes its jobs to the outbox through `queueDue`, and sends and nudges them at once: the consumer's own
 * minute may already be under way. `countAs` names the count in the drain answer.
 */
export function schedulerRuns(countAs: string, queueDue: (db: Database) => Promise<string[]>): WorkerRuns {
  const run = (env: Env) =>
    withDatabase(env, async (db) => {
      const jobIds = await queueDue(db);
      if (jobIds.length) await nudgeConsumers(env, (await relayOutbox(db, env, { ids: jobIds })).kinds);
      return { [countAs]: jobIds.length };
    });
  return {
    drain: async (env) => ({ body: await run(env) }),
    scheduled: (env) => [run(env)],
  };
}
