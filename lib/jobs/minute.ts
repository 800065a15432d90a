import type { Env } from "../env";
import { errorFields, logEvent } from "../log";
import { drainHeaders } from "./drain-auth";

/**
 * The Workers free plan allows five cron triggers; Herald has ten Workers that want one each minute. So one
 * Worker has the trigger (the outbox relay, queues/outbox-relay.ts) and starts every other one's minute through
 * a service binding `CRON_<NAME>` (wrangler.toml, written by local/sync-workers.ts): `POST /drain?cron=1`, which a
 * consumer answers by draining for most of the minute (lib/jobs/consumer-worker.ts) and a scheduler by queuing
 * what is due. The calls run side by side, each in its own Worker's invocation (its own CPU budget), and one
 * that fails or is missing does not hold up the others: the next minute tries again.
 */
export const CRON_BINDING_PREFIX = "CRON_";

/** The binding that starts a Worker's minute: `publication-scheduler` → `CRON_PUBLICATION_SCHEDULER`. */
export const cronBindingName = (worker: string) => `${CRON_BINDING_PREFIX}${worker.toUpperCase().replace(/-/g, "_")}` as const;

/** The query that asks a Worker's `POST /drain` for its cron run rather than an on-demand drain. */
export const CRON_RUN_PARAM = "cron";

export interface MinuteReport {
  /** Binding name → the HTTP status its Worker answered, or the error class when it could not be reached. */
  [binding: string]: number | string;
}

/** Starts the minute of every Worker this one has a `CRON_*` binding to, and waits for them all. */
export async function startEveryMinute(env: Env): Promise<MinuteReport> {
  const secret = env.DRAIN_SECRET;
  const bindings = Object.keys(env).filter((key): key is `${typeof CRON_BINDING_PREFIX}${string}` => key.startsWith(CRON_BINDING_PREFIX));
  if (!secret) {
    if (bindings.length) logEvent("error", "cron runs skipped", { code: "drain-secret-unset", workers: bindings.length });
    return {};
  }
  const report: MinuteReport = {};
  await Promise.all(
    bindings.map(async (name) => {
      const binding = env[name];
      if (!binding) return;
      try {
        const res = await binding.fetch(`https://worker/drain?${CRON_RUN_PARAM}=1`, { method: "POST", headers: drainHeaders(secret) });
        await res.body?.cancel();
        report[name] = res.status;
        if (!res.ok) logEvent("error", "cron run refused", { binding: name, status: res.status });
      } catch (err) {
        const fields = errorFields(err);
        report[name] = fields.error;
        logEvent("error", "cron run failed", { binding: name, ...fields });
      }
    }),
  );
  return report;
}
