import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHeraldClient } from "../client";
import gateway from "../functions/all-groups";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { expectData } from "./helpers/typed";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

const SECRET = `whsec_${Buffer.from("the client retry tests' secret").toString("base64")}`;
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterAll(() => receiver.stop());

/** The in-process API, with `fault` deciding, per publish-now attempt, what the caller gets instead of the answer. */
function flakyApi(token: string, fault: (attempt: number, call: () => Promise<Response>) => Promise<Response>) {
  const keys: (string | null)[] = [];
  const real = (request: Request) => Promise.resolve(gateway.request(request, undefined, env));
  const api = createHeraldClient({
    baseUrl: "http://herald.test",
    token,
    retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 50 },
    fetch: (request) => {
      if (!request.url.endsWith("/publish-now")) return real(request);
      keys.push(request.headers.get("idempotency-key"));
      return fault(keys.length, () => real(request));
    },
  });
  return { api, keys };
}

async function draft() {
  const owner = await newUser();
  const workspaceId = await newWorkspace(owner);
  const hook = await newAccount(workspaceId, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  const created = await client(owner.token).POST("/publications", {
    body: { workspace_id: workspaceId, source_text: "Retried safely", destinations: [{ social_account_id: hook }] },
  });
  return { owner, workspaceId, pub: expectData(created, 201) };
}

describe("the typed client's publishNow", () => {
  it("retries an answer lost after the API acted, with the same Idempotency-Key: published once", async () => {
    const { owner, pub } = await draft();
    let firstAnswer: unknown;
    const { api, keys } = flakyApi(owner.token, async (attempt, call) => {
      const res = await call();
      if (attempt === 1) {
        firstAnswer = await res.json();
        throw new TypeError("fetch failed: the connection dropped before the answer arrived");
      }
      return res;
    });
    const answer = expectData(await api.publishNow(pub.id, { expected_revision: 1 }), 202);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    // The API replayed its first answer: the same job, not a second publish.
    expect(answer).toEqual(firstAnswer);
    expect(await runPipeline(pub.id)).toBe("published");
    expect(receiver.deliveries.filter((d) => d.body?.publication_id === pub.id)).toHaveLength(1);
    const read = expectData(await client(owner.token).GET("/publications/{id}", { params: { path: { id: pub.id } } }));
    expect(read.revision).toBe(2);
  });

  it("retries a 503 and a 429 with the same key; gives up after the bounded attempts; never retries a 4xx", async () => {
    const { owner, pub } = await draft();
    const busy = (status: number) => new Response(JSON.stringify({ type: "x/problems/busy", status }), { status, headers: { "retry-after": "0" } });
    const flaky = flakyApi(owner.token, async (attempt, call) => (attempt === 1 ? busy(503) : attempt === 2 ? busy(429) : call()));
    expectData(await flaky.api.publishNow(pub.id, { expected_revision: 1 }, { idempotencyKey: "my-own-key" }), 202);
    expect(flaky.keys).toEqual(["my-own-key", "my-own-key", "my-own-key"]);

    const down = flakyApi(owner.token, async () => {
      throw new TypeError("fetch failed");
    });
    await expect(down.api.publishNow(pub.id, { expected_revision: 2 })).rejects.toThrow(/fetch failed/);
    expect(down.keys).toHaveLength(4);
    expect(new Set(down.keys).size).toBe(1);

    // A stale revision is the caller's to fix: answered at once.
    const stale = flakyApi(owner.token, (_attempt, call) => call());
    const refused = await stale.api.publishNow(pub.id, { expected_revision: 1 });
    expect(refused.response.status).toBe(409);
    expect(stale.keys).toHaveLength(1);
  });
});
