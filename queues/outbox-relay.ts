import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { drainRefusal } from "../lib/jobs/drain-auth";
import { relayOutbox } from "../lib/jobs/outbox";

/** Sends outbox rows that the request fast path could not (SQS down, crash before send). */
async function relay(env: Env, budgetMs: number) {
  const deadline = Date.now() + budgetMs;
  const { db, close } = openDb(env);
  const total = { sent: 0, failed: 0 };
  try {
    while (Date.now() < deadline) {
      const { sent, failed } = await relayOutbox(db, env);
      total.sent += sent;
      total.failed += failed;
      if (sent === 0) break;
    }
    return total;
  } finally {
    await close();
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method === "POST" && new URL(request.url).pathname === "/drain") return (await drainRefusal(request, env)) ?? Response.json(await relay(env, 10_000));
    return new Response("Not found", { status: 404 });
  },
  async scheduled(_event: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(relay(env, 50_000));
  },
};
