import type { Env } from "../env";
import { drainQueue, type ConsumerDefinition } from "./consumer";
import { drainRefusal } from "./drain-auth";

/**
 * A consumer as a Worker. In production a cron trigger drains the queue each minute; `POST /drain`
 * does the same on demand for holders of DRAIN_SECRET (the local launcher calls it in a loop,
 * long-polling SQS; the gateway nudges it after a commit).
 */
export function createConsumerWorker<P>(consumer: ConsumerDefinition<P>) {
  return {
    async fetch(request: Request, env: Env): Promise<Response> {
      const url = new URL(request.url);
      if (request.method === "POST" && url.pathname === "/drain") {
        const refused = await drainRefusal(request, env);
        if (refused) return refused;
        const wait = Math.min(20, Math.max(0, Number(url.searchParams.get("wait") ?? 0) || 0));
        const result = await drainQueue(env, consumer, { waitSeconds: wait, budgetMs: (wait + 5) * 1000 });
        return Response.json({ kind: consumer.kind, ...result });
      }
      return new Response("Not found", { status: 404 });
    },
    async scheduled(_event: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
      ctx.waitUntil(drainQueue(env, consumer, { waitSeconds: 10, budgetMs: 50_000 }));
    },
  };
}
