import type { Env } from "../env";
import { errorFields, logEvent } from "../log";
import { drainHeaders } from "./drain-auth";
import { JOB_KINDS, type JobKind } from "./kinds";

/**
 * On Workers the consumers run from a cron trigger once a minute, so a job sent to SQS could wait up to
 * a minute. After the commit, the Worker that queued jobs nudges their consumers at once: `POST /drain`
 * through a service binding `NUDGE_<QUEUE KEY>` (wrangler.toml `services`; the Worker `herald-<consumer>`),
 * or, under `npm start`, through CONSUMERS_URL (the local all-in-one consumers Worker). The cron stays as
 * the backstop: a nudge that fails costs only the wait it would have saved.
 */
export const CONSUMER_OF: Partial<Record<JobKind, string>> = {
  "publication.publish": "publish",
  "analytics.refresh": "analytics-refresh",
  "messages.refresh": "messages-refresh",
  "build.generate": "build-generate",
  "repost.execute": "repost",
  "event.deliver": "event-deliver",
};

/** The service binding name for a kind's consumer: NUDGE_PUBLISH, NUDGE_ANALYTICS, … */
export const nudgeBindingName = (kind: JobKind) => `NUDGE_${JOB_KINDS[kind].queueKey}` as const;

export async function nudgeConsumers(env: Env, kinds: Iterable<JobKind>): Promise<void> {
  const secret = env.DRAIN_SECRET;
  if (!secret) return;
  const calls = [...new Set(kinds)].map(async (kind) => {
    const consumer = CONSUMER_OF[kind];
    if (!consumer) return;
    const binding = env[nudgeBindingName(kind)];
    const init = { method: "POST", headers: drainHeaders(secret) };
    try {
      // Locally the bindings exist but lead nowhere (one Worker runs every consumer): CONSUMERS_URL first.
      const res = env.CONSUMERS_URL
        ? await fetch(`${env.CONSUMERS_URL.replace(/\/+$/, "")}/${consumer}/drain?wait=0&detach=1`, init)
        : binding
          ? await binding.fetch("https://consumer/drain?wait=0&detach=1", init)
          : undefined;
      await res?.body?.cancel();
      if (res && !res.ok) logEvent("warn", "nudge refused", { kind, status: res.status });
    } catch (err) {
      logEvent("warn", "nudge failed", { kind, ...errorFields(err) });
    }
  });
  await Promise.all(calls);
}
