import { sleep } from "./processes";

export interface Pump {
  stop(): Promise<void>;
}

/**
 * Locally nothing triggers the consumers (no cron, no SQS event source), so the launcher drives them:
 * for each consumer, a loop of `POST <base>/<name>/drain?wait=10`. Queue consumers long-poll SQS
 * inside that call, so a job starts as soon as it is queued; a call that returns at once (the outbox
 * relay, which does not long-poll) is repeated about every second, or every `everySeconds`.
 *
 * Failures (SQS or the database down, the consumers Worker restarting) never end the loop: it logs,
 * backs off (1 s doubling to 30 s) and tries again, and says when the consumer recovers.
 */
export function startPump(opts: {
  baseUrl: string;
  headers?: Record<string, string>;
  consumers: { name: string; everySeconds?: number }[];
  waitSeconds?: number;
  log: (line: string) => void;
}): Pump {
  const controller = new AbortController();
  const { signal } = controller;
  const wait = opts.waitSeconds ?? 10;

  async function loop(name: string, everyMs: number) {
    let failures = 0;
    while (!signal.aborted) {
      const started = Date.now();
      try {
        const res = await fetch(`${opts.baseUrl}/${name}/drain?wait=${wait}`, { method: "POST", headers: opts.headers, signal });
        const text = await res.text();
        if (!res.ok) throw new Error(`HTTP ${res.status} ${text.slice(0, 300)}`);
        if (failures > 0) opts.log(`[pump] ${name}: recovered`);
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5));
        // First failure, then once in a while: an outage must not flood the terminal.
        if (failures === 1 || failures % 20 === 0) {
          opts.log(`[pump] ${name}: ${String((error as Error)?.message ?? error).slice(0, 300)}; retrying (attempt ${failures}, next in ${delay / 1000} s)`);
        }
        await sleep(delay, signal);
        continue;
      }
      const elapsed = Date.now() - started;
      if (elapsed < everyMs) await sleep(everyMs - elapsed, signal);
    }
  }

  const loops = opts.consumers.map(({ name, everySeconds }) =>
    loop(name, Math.max(0.1, everySeconds ?? 1) * 1000).catch((error) => opts.log(`[pump] ${name} stopped: ${error}`)),
  );
  return {
    async stop() {
      controller.abort();
      await Promise.all(loops);
    },
  };
}
