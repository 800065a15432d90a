import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { drainRefusal } from "../lib/jobs/drain-auth";
import { nudgeConsumers } from "../lib/jobs/nudge";
import { relayOutbox } from "../lib/jobs/outbox";
import { evaluateRepostPolicies } from "../lib/repost/run-evaluator";

/** Evaluates repost policies (cron each minute; `POST /drain` on demand with DRAIN_SECRET, as the local launcher does). */
async function run(env: Env): Promise<{ queued: number }> {
  const { db, close } = openDb(env);
  try {
    const jobIds = await evaluateRepostPolicies(db);
    // Sent and nudged now: the repost consumer's own cron may have run already this minute.
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
