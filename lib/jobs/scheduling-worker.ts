import { openDb, type Database } from "../db/client";
import type { Env } from "../env";
import { drainRefusal } from "./drain-auth";
import { nudgeConsumers } from "./nudge";
import { relayOutbox } from "./outbox";

/**
 * A Worker that finds due work each minute (`POST /drain?cron=1` from the outbox relay's cron, lib/jobs/minute.ts;
 * or on `POST /drain` with DRAIN_SECRET, as the local launcher does: the same run), writes its jobs to the outbox
 * through `queueDue`, and sends and nudges them at once: the consumer's own minute may already be under way.
 * `countAs` names the count in the drain answer.
 */
export function schedulingWorker<K extends string>(countAs: K, queueDue: (db: Database) => Promise<string[]>) {
  async function run(env: Env): Promise<Record<K, number>> {
    const { db, close } = openDb(env);
    try {
      const jobIds = await queueDue(db);
      if (jobIds.length) await nudgeConsumers(env, (await relayOutbox(db, env, { ids: jobIds })).kinds);
      return { [countAs]: jobIds.length } as Record<K, number>;
    } finally {
      await close();
    }
  }
  return {
    async fetch(request: Request, env: Env): Promise<Response> {
      if (request.method === "POST" && new URL(request.url).pathname === "/drain") return (await drainRefusal(request, env)) ?? Response.json(await run(env));
      return new Response("Not found", { status: 404 });
    },
    async scheduled(_event: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
      ctx.waitUntil(run(env));
    },
  };
}
