import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import type { Env } from "../lib/env";
import publishWorker from "../queues/publish";
import { env, newUser, newWorkspace } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * Publish-now starts at once: after the commit the API nudges the publish consumer (POST /drain through
 * its service binding, lib/jobs/nudge.ts) instead of leaving the job to the next cron minute. Nothing
 * in this test drains a queue: if the delivery arrives, the nudge ran the real consumer Worker. The
 * binding is the consumer Worker's own module called in-process, as workerd would route it.
 */
const SECRET = "whsec_" + Buffer.from("nudge test secret").toString("base64");
const DRAIN_SECRET = "drain-secret-for-tests-0123456789abcdefghijklmnop";
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterAll(async () => {
  await Promise.allSettled(background);
  await receiver.stop();
});

/** The consumer's own waitUntil: what it hands over keeps running after it has answered the nudge. */
const background: Promise<unknown>[] = [];
const consumerCtx = { waitUntil: (p: Promise<unknown>) => void background.push(p), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

function envWithBinding(calls: string[]): Env {
  const e: Env = { ...env, DRAIN_SECRET };
  e.NUDGE_PUBLISH = {
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      calls.push(`${request.method} ${url.pathname}${url.search}`);
      const res = await publishWorker.fetch(request, e, consumerCtx);
      // A nudge is answered at once; the work goes on in the consumer's waitUntil.
      if (url.searchParams.get("detach") === "1") expect(res.status).toBe(202);
      return res;
    },
    connect() {
      throw new Error("not used");
    },
  } as unknown as Fetcher;
  return e;
}

async function publishNow(e: Env) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  const call = async (method: string, path: string, json: unknown) => {
    const res = await gateway.request(
      path,
      { method, headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" }, body: JSON.stringify(json) },
      e,
    );
    return { status: res.status, body: (await res.json()) as any };
  };
  const created = await call("POST", "/publications", {
    workspace_id: ws,
    title: "Now",
    source_text: "Published at once.",
    destinations: [{ social_account_id: hook }],
  });
  expect(created.status).toBe(201);
  const res = await call("POST", `/publications/${created.body.id}/publish-now`, { expected_revision: created.body.revision });
  expect(res.status).toBe(202);
  return { id: created.body.id as string, at: Date.now() };
}

const delivered = (id: string) => receiver.deliveries.some((d) => d.body?.publication_id === id);

describe("publish-now nudges the publish consumer", () => {
  it("delivers without waiting for the cron: the API's nudge runs the consumer", async () => {
    const calls: string[] = [];
    const { id, at } = await publishNow(envWithBinding(calls));
    const deadline = Date.now() + 15_000;
    while (!delivered(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(delivered(id)).toBe(true);
    expect(calls).toContain("POST /drain?wait=0&detach=1");
    console.log(`nudge: publish-now → webhook delivered in ${Date.now() - at} ms (in-process Workers, real Postgres and SQS)`);
  });

  it("does not nudge without DRAIN_SECRET (the consumers would refuse it anyway)", async () => {
    const calls: string[] = [];
    const e = envWithBinding(calls);
    await publishNow({ ...e, DRAIN_SECRET: undefined });
    await new Promise((r) => setTimeout(r, 500));
    expect(calls).toEqual([]);
    // Leave the shared queue as it was found.
    await e.NUDGE_PUBLISH!.fetch("https://consumer/drain?wait=0", { method: "POST", headers: { authorization: `Bearer ${DRAIN_SECRET}` } });
  });
});
