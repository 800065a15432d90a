import type { Env } from "../lib/env";
import { drainRefusal } from "../lib/jobs/drain-auth";
import type { QueueWorker } from "../lib/jobs/queue-worker";
import { errorFields } from "../lib/log";

/**
 * Every queue consumer in one Worker, for `npm start` only (each file under queues/ stays deployable on
 * its own: wrangler.toml [env.<name>]). The launcher's pump calls `POST /<name>/drain?wait=10` in a
 * loop for each consumer that `GET /` lists: at once again for a queue consumer (it long-polls SQS), at
 * most every `everySeconds` (default 1) for one that returns at once. Each is a queue Worker
 * (lib/jobs/queue-worker.ts), answering `POST /drain` as deployed.
 *
 * Adding a consumer is one line here: `"<file name>": () => import("./<file name>"),` (or
 * `{ load: …, everySeconds: 60 }` for housekeeping that need not run every second).
 */
export const CONSUMERS: Record<string, Load | { load: Load; everySeconds: number }> = {
  "outbox-relay": () => import("./outbox-relay"),
  "analytics-refresh": () => import("./analytics-refresh"),
  "messages-refresh": () => import("./messages-refresh"),
  publish: () => import("./publish"),
  "build-generate": () => import("./build-generate"),
  "publication-scheduler": () => import("./publication-scheduler"),
  repost: () => import("./repost"),
  "event-deliver": () => import("./event-deliver"),
  "repost-evaluator": { load: () => import("./repost-evaluator"), everySeconds: 60 },
  "analytics-scheduler": { load: () => import("./analytics-scheduler"), everySeconds: 60 },
  "media-purge": { load: () => import("./media-purge"), everySeconds: 60 },
};

type Load = () => Promise<{ default: QueueWorker }>;

/** One of CONSUMERS, loaded. */
async function consumer(name: string): Promise<QueueWorker> {
  const entry = CONSUMERS[name];
  return (await ("load" in entry ? entry.load : entry)()).default;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    // Only the launcher (holding DRAIN_SECRET) drives it: a web page open on this machine cannot.
    const refused = await drainRefusal(request, env);
    if (refused) return refused;
    if (request.method === "GET" && url.pathname === "/") {
      const consumers = Object.entries(CONSUMERS).map(([name, entry]) => ({ name, everySeconds: "load" in entry ? entry.everySeconds : 1 }));
      return Response.json({ consumers });
    }
    const match = /^\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (!match || !Object.hasOwn(CONSUMERS, match[1])) return new Response("Not found", { status: 404 });
    try {
      const worker = await consumer(match[1]);
      // Hand the consumer the request as its own Worker would see it: /<name>/drain → /drain.
      const inner = new URL(url);
      inner.pathname = match[2];
      return await worker.fetch(new Request(inner, request), env, ctx);
    } catch (error) {
      // SQS or the database unreachable: report it to the pump, which backs off and tries again.
      return Response.json({ consumer: match[1], ...errorFields(error) }, { status: 503 });
    }
  },
};
