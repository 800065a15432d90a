import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import type { Env } from "../lib/env";
import { drainHeaders } from "../lib/jobs/drain-auth";
import { REPO_ROOT, WRANGLER_CONFIG } from "../local/services/wrangler";
import { consumerNames, deployableWorkers } from "../local/workers";
import { env } from "./helpers/harness";

/**
 * Consumer Workers run work on `POST /drain`: only a caller holding DRAIN_SECRET may drive them, and
 * in production they are not reachable from the internet at all (wrangler.toml).
 */
const SECRET = "drain-secret-for-tests-0123456789abcdefghijklmnop";
const drain = (headers: Record<string, string> = {}) => new Request("http://worker/drain?wait=0", { method: "POST", headers });

type Worker = { fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> };
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
const load = async (name: string) => ((await import(pathToFileURL(path.join(REPO_ROOT, "queues", `${name}.ts`)).href)) as { default: Worker }).default;

describe("consumer Workers' POST /drain", () => {
  it.each(consumerNames())("%s: 404 without a configured secret, 401 without or with a wrong bearer", async (name) => {
    const worker = await load(name);
    // The real stack's bindings, so a request that got through would really run the consumer.
    const { DRAIN_SECRET: _, ...unconfigured } = env;
    expect((await worker.fetch(drain(drainHeaders(SECRET)), unconfigured as Env, ctx)).status).toBe(404);
    expect((await worker.fetch(drain(drainHeaders("short")), { ...unconfigured, DRAIN_SECRET: "short" } as Env, ctx)).status).toBe(404);
    const configured = { ...env, DRAIN_SECRET: SECRET };
    const none = await worker.fetch(drain(), configured, ctx);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect((await worker.fetch(drain(drainHeaders(SECRET.slice(0, -1) + "X")), configured, ctx)).status).toBe(401);
    expect((await worker.fetch(drain(drainHeaders(SECRET + "X")), configured, ctx)).status).toBe(401);
    expect((await worker.fetch(drain({ authorization: SECRET }), configured, ctx)).status).toBe(401);
    expect((await worker.fetch(new Request("http://worker/drain?wait=0&detach=1", { method: "POST" }), configured, ctx)).status).toBe(401);
  });

  it("runs the consumer for the holder of the secret", async () => {
    const configured = { ...env, DRAIN_SECRET: SECRET };
    const relay = await (await load("outbox-relay")).fetch(drain(drainHeaders(SECRET)), configured, ctx);
    expect(relay.status).toBe(200);
    expect(await relay.json()).toMatchObject({ sent: expect.any(Number), failed: expect.any(Number) });
    const analytics = await (await load("analytics-refresh")).fetch(drain(drainHeaders(SECRET)), configured, ctx);
    expect(analytics.status).toBe(200);
    expect(await analytics.json()).toMatchObject({ kind: "analytics.refresh", received: expect.any(Number) });
  });

  it("the local all-in-one consumers Worker wants the secret for everything, its listing included", async () => {
    const local = (await import("../queues/local")).default;
    const configured = { ...env, DRAIN_SECRET: SECRET };
    expect((await local.fetch(new Request("http://consumers/"), configured, ctx)).status).toBe(401);
    expect((await local.fetch(new Request("http://consumers/outbox-relay/drain", { method: "POST" }), configured, ctx)).status).toBe(401);
    const listing = await local.fetch(new Request("http://consumers/", { headers: drainHeaders(SECRET) }), configured, ctx);
    expect(listing.status).toBe(200);
    expect(((await listing.json()) as { consumers: unknown[] }).consumers.length).toBeGreaterThan(0);
  });
});

describe("wrangler.toml", () => {
  it("no consumer Worker is public: workers_dev and preview URLs are off, and it has no routes", async () => {
    const { workers } = await deployableWorkers();
    const consumers = workers.filter((w) => w.kind === "consumer");
    expect(consumers.length).toBe(consumerNames().length);
    for (const worker of consumers) {
      // wrangler's own reading of the file, environment inheritance included.
      const config = unstable_readConfig({ config: WRANGLER_CONFIG, env: worker.env });
      expect(config.workers_dev, worker.name).toBe(false);
      expect(config.preview_urls, worker.name).toBe(false);
      expect(config.routes ?? [], worker.name).toEqual([]);
      expect(config.route, worker.name).toBeUndefined();
      // One cron for all (test/cron-triggers.test.ts): the relay's starts every other consumer's minute.
      expect(config.triggers.crons ?? [], worker.name).toEqual(worker.name === "outbox-relay" ? ["* * * * *"] : []);
    }
  });
});
