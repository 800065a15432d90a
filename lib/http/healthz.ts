import type { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { Env } from "../env";
import { withTimeout } from "../timeout";
import { db, type AppEnv } from "./context";

/** Whether the queue answers; a Worker that sends jobs gets it from its entry (lib/jobs/queue-probe.ts). */
export type QueueProbe = (env: Env) => Promise<boolean>;

/**
 * GET /healthz: 200 when the database (and, where the Worker was given a queue probe, SQS) answers within
 * 3 s, else 503. Without a probe the queue reads "ok", as it always did for a Worker with no queue configured.
 */
export function mountHealthz(app: OpenAPIHono<AppEnv>, queueProbe: QueueProbe | undefined): void {
  app.get("/healthz", async (c) => {
    const [database, queue] = await Promise.all([
      withTimeout(db(c).execute(sql`select 1`), 3000).then(
        () => true,
        () => false,
      ),
      queueProbe ? queueProbe(c.env) : true,
    ]);
    const ok = database && queue;
    return c.json(
      { status: ok ? "ok" : "unavailable", checks: { database: database ? "ok" : "unavailable", queue: queue ? "ok" : "unavailable" } },
      ok ? 200 : 503,
    );
  });
}
