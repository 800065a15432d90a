import type { Env } from "../env";
import { drainRefusal } from "./drain-auth";
import { CRON_RUN_PARAM } from "./minute";

/** How `POST /drain` was called. */
export interface DrainCall {
  /** `?cron=1`: this minute's run, started by the outbox relay's cron (lib/jobs/minute.ts). */
  cron: boolean;
  /** `?detach=1` from a caller that can wait for nothing (a nudge, lib/jobs/nudge.ts), and a `waitUntil` to work on in. */
  detachInto?: ExecutionContext;
  /** `?wait=`: how long a queue may be long-polled, 0–20 s. */
  waitSeconds: number;
}

/** What `POST /drain` answers: a JSON body, 200 unless said otherwise. */
export interface DrainAnswer {
  body: object;
  status?: number;
}

/**
 * What a queue Worker does: its work on `POST /drain` (for the holder of DRAIN_SECRET: the relay's cron each
 * minute, a nudge, the local launcher's pump) and on a cron trigger of its own. Made for a job consumer by
 * `consumerRuns` (lib/jobs/consumer-worker.ts), for a scheduler by `schedulerRuns` (lib/jobs/scheduling-worker.ts);
 * the outbox relay and the media purge declare theirs.
 */
export interface WorkerRuns {
  drain(env: Env, call: DrainCall): Promise<DrainAnswer>;
  /** Each run in its own `waitUntil`, so one that fails does not end the invocation under the others. */
  scheduled(env: Env): Promise<unknown>[];
}

/** A queue Worker's exported handler (what wrangler.toml's `main = "queues/<name>.ts"` exports). */
export interface QueueWorker {
  fetch(request: Request, env: Env, ctx?: ExecutionContext): Promise<Response>;
  scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void>;
}

/**
 * A queue Worker from what it runs. Only `POST /drain` exists, and only for the holder of DRAIN_SECRET
 * (lib/jobs/drain-auth.ts); in production these Workers are reachable through service bindings only.
 */
export function queueWorker(runs: WorkerRuns): QueueWorker {
  const worker: QueueWorker = {
    async fetch(request, env, ctx) {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/drain") return new Response("Not found", { status: 404 });
      const refused = await drainRefusal(request, env);
      if (refused) return refused;
      const { body, status } = await runs.drain(env, {
        cron: url.searchParams.get(CRON_RUN_PARAM) === "1",
        detachInto: url.searchParams.get("detach") === "1" ? ctx : undefined,
        waitSeconds: Math.min(20, Math.max(0, Number(url.searchParams.get("wait") ?? 0) || 0)),
      });
      return Response.json(body, { status: status ?? 200 });
    },
    async scheduled(_controller, env, ctx) {
      for (const run of runs.scheduled(env)) ctx.waitUntil(run);
    },
  };
  return worker satisfies ExportedHandler<Env>;
}
