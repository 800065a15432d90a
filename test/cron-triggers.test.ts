import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import type { Env } from "../lib/env";
import { drainHeaders } from "../lib/jobs/drain-auth";
import { cronBindingName, startEveryMinute } from "../lib/jobs/minute";
import { CLOCK_WORKER, envSection } from "../local/sync-workers";
import { withWorkerSections } from "../local/wrangler-sections";
import { WRANGLER_CONFIG } from "../local/services/wrangler";
import { consumerNames, deployableWorkers } from "../local/workers";

/**
 * The Workers free plan allows five cron triggers. Herald has one (the outbox relay's), which starts every
 * other consumer's minute through a CRON_* service binding (lib/jobs/minute.ts).
 */
describe("cron triggers", () => {
  it("wrangler.toml has at most five, all of them on the outbox relay, which binds every other consumer", async () => {
    const { workers } = await deployableWorkers();
    const crons = workers.flatMap((w) =>
      ((unstable_readConfig({ config: WRANGLER_CONFIG, env: w.env || undefined }).triggers.crons ?? []) as string[]).map((cron) => `${w.name}: ${cron}`),
    );
    expect(crons.length).toBeLessThanOrEqual(5);
    expect(crons).toEqual([`${CLOCK_WORKER}: * * * * *`]);
    const relay = unstable_readConfig({ config: WRANGLER_CONFIG, env: CLOCK_WORKER });
    const services = (relay.services ?? []) as { binding: string; service: string }[];
    const cronBindings = services.filter((s) => s.binding.startsWith("CRON_")).map((s) => [s.binding, s.service]);
    const others = consumerNames().filter((n) => n !== CLOCK_WORKER);
    expect(cronBindings.sort()).toEqual(others.map((n) => [cronBindingName(n), `herald-${n}`]).sort());
  });

  it("wrangler.toml's [env.*] sections are what local/sync-workers.ts writes; a new consumer gets no cron but a CRON_* binding on the relay", async () => {
    const toml = fs.readFileSync(WRANGLER_CONFIG, "utf8");
    const { workers } = await deployableWorkers();
    const groups = workers.filter((w) => w.kind === "group").map((w): [string, string] => [w.name, w.main]);
    // In step: the script would write the file as it is (else `npx tsx local/sync-workers.ts`).
    expect(withWorkerSections(toml, groups, consumerNames())).toBe(toml);
    const section = envSection("newcomer", "queues/newcomer.ts", "consumer");
    expect(section).not.toMatch(/triggers|crons/);
    expect(section).toMatch(/workers_dev = false/);
    const added = withWorkerSections(toml, groups, [...consumerNames(), "newcomer"].sort());
    expect(added).toContain(section);
    expect(added).toContain('{ binding = "CRON_NEWCOMER", service = "herald-newcomer" }');
    expect(added.match(/crons/g)).toHaveLength(toml.match(/crons/g)!.length);
    // And it is a fixpoint.
    expect(withWorkerSections(added, groups, [...consumerNames(), "newcomer"].sort())).toBe(added);
  });
});

describe("the relay's minute (startEveryMinute)", () => {
  const SECRET = "drain-secret-for-tests-0123456789abcdefghijklmnop";
  /** A service binding that records what it was asked. */
  function binding(calls: string[], name: string, answer: () => Response) {
    return {
      async fetch(input: RequestInfo | URL, init?: RequestInit) {
        const request = new Request(input, init);
        calls.push(`${name} ${request.method} ${new URL(request.url).pathname}${new URL(request.url).search} ${request.headers.get("authorization")}`);
        return answer();
      },
      connect() {
        throw new Error("not used");
      },
    } as Fetcher;
  }

  it("POSTs /drain?cron=1 with the drain secret to every CRON_* binding; one failing does not stop the others", async () => {
    const calls: string[] = [];
    const e = {
      DRAIN_SECRET: SECRET,
      CRON_PUBLISH: binding(calls, "publish", () => new Response("{}")),
      CRON_MEDIA_PURGE: binding(calls, "media-purge", () => {
        throw new TypeError("network connection lost");
      }),
      CRON_REPOST: binding(calls, "repost", () => new Response("no", { status: 503 })),
      NUDGE_PUBLISH: binding(calls, "nudge", () => new Response("{}")),
    } as unknown as Env;
    const report = await startEveryMinute(e);
    expect(report).toEqual({ CRON_PUBLISH: 200, CRON_MEDIA_PURGE: "TypeError", CRON_REPOST: 503 });
    const bearer = drainHeaders(SECRET).authorization;
    expect(calls.sort()).toEqual([`media-purge POST /drain?cron=1 ${bearer}`, `publish POST /drain?cron=1 ${bearer}`, `repost POST /drain?cron=1 ${bearer}`]);
  });

  it("without DRAIN_SECRET calls nothing (the Workers would refuse it)", async () => {
    const calls: string[] = [];
    expect(await startEveryMinute({ CRON_PUBLISH: binding(calls, "publish", () => new Response("{}")) } as unknown as Env)).toEqual({});
    expect(calls).toEqual([]);
  });
});
