import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { queueDueAccounts } from "../lib/analytics/schedule";
import { drainRefusal } from "../lib/jobs/drain-auth";
import { nudgeConsumers } from "../lib/jobs/nudge";
import { relayOutbox } from "../lib/jobs/outbox";

/**
 * Keeps analytics fresh without anyone asking: queues a collection job for each account whose
 * next_eligible_at has passed (cron each minute; `POST /drain` on demand with DRAIN_SECRET, as the
 * local launcher does every minute).
 */
async function run(env: Env): Promise<{ queued: number }> {
  const { db, close } = openDb(env);
  try {
    const jobIds = await queueDueAccounts(db);
    if (jobIds.length) await nudgeConsumers(env, (await relayOutbox(db, env, { ids: jobIds })).kinds);
    return { queued: jobIds.length };
  } finally {
    await close();
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method === "POST" && new URL(request.url).pathname === "/drain") return (await drainRefusal(request, env)) ?? Response.json(await run(env));
    return new Response("Not found", { status: 404 });
  },
  async scheduled(_event: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(run(env));
  },
};
