import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryAttempts, outboxJobs, renditions } from "../db/schema";
import { client } from "./helpers/client";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { makeDueNow, runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { expectData } from "./helpers/typed";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

const SECRET = "whsec_" + Buffer.from("a secret of our own for tests").toString("base64");
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterAll(() => receiver.stop());

async function publication(text: string) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  const created = await client(owner.token).POST("/publications", {
    body: { workspace_id: ws, title: "Hook", source_text: text, destinations: [{ social_account_id: hook }] },
  });
  return { owner, ws, hook, pub: expectData(created, 201) };
}

const deliveriesFor = (pubId: string) => receiver.deliveries.filter((d) => d.body?.publication_id === pubId);
const attemptsFor = (pubId: string) => receiver.attempts.filter((d) => d.body?.publication_id === pubId);
const publishNow = (token: string, id: string, revision: number, key?: string) =>
  client(token).POST("/publications/{id}/publish-now", {
    params: { path: { id }, header: key ? { "idempotency-key": key } : {} },
    body: { expected_revision: revision },
  });
const read = async (token: string, id: string) => expectData(await client(token).GET("/publications/{id}", { params: { path: { id } } }));

describe("publishing to a webhook", () => {
  it("publish-now → outbox → SQS → consumer → signed delivery → published", async () => {
    const { owner, pub } = await publication("Hello from Herald");
    const res = expectData(await publishNow(owner.token, pub.id, 1), 202);
    expect(res).toMatchObject({ publication_id: pub.id, revision: 2, job_id: expect.stringMatching(/^job_/) });
    expect(res.renditions[0]).toMatchObject({ status: "queued", platform: "webhook" });
    expect(await runPipeline(pub.id)).toBe("published");

    const got = await read(owner.token, pub.id);
    const rendition = got.renditions[0];
    expect(rendition).toMatchObject({ status: "published", external_id: expect.stringMatching(/^rcv_/), external_url: expect.stringContaining("/posts/") });
    expect(rendition.delivery).toMatchObject({ state: "succeeded", current_attempt_number: 1, recovery_action: "none" });
    expect(got.actual_run_at).not.toBeNull();
    const [delivery] = deliveriesFor(pub.id);
    expect(delivery.signatureValid).toBe(true);
    expect(delivery.body).toMatchObject({
      type: "rendition.publish",
      rendition_id: rendition.id,
      title: "Hook",
      segments: [{ position: 0, body: "Hello from Herald" }],
    });
    expect(deliveriesFor(pub.id)).toHaveLength(1);
    // Publishing again is refused once published.
    expect((await publishNow(owner.token, pub.id, 2)).response.status).toBe(409);
  });

  it("provider 500 twice then 200: retried with backoff, published, one post", async () => {
    const { owner, pub } = await publication("Retry me");
    receiver.failNext(2, 500);
    await publishNow(owner.token, pub.id, 1);
    await runPipeline(pub.id, { until: () => true, timeoutMs: 5000 });
    let state = (await read(owner.token, pub.id)).renditions[0];
    expect(state).toMatchObject({ status: "retrying", error_retryable: true, error_http_status: 500, error_kind: "unavailable" });
    const retryIn = new Date(state.error_retry_at ?? "").getTime() - Date.now();
    expect(retryIn).toBeGreaterThan(1000); // backed off, not hammering
    expect(retryIn).toBeLessThan(90_000);
    for (let i = 0; i < 3 && state.status !== "published"; i++) {
      await makeDueNow(pub.id);
      await runPipeline(pub.id, { until: () => true, timeoutMs: 5000 });
      state = (await read(owner.token, pub.id)).renditions[0];
    }
    expect(state.status).toBe("published");
    expect(state.delivery.current_attempt_number).toBe(3);
    expect(attemptsFor(pub.id)).toHaveLength(3);
    expect(deliveriesFor(pub.id)).toHaveLength(1);
    // Every attempt carried the same webhook-id, so a receiver could drop duplicates.
    expect(new Set(attemptsFor(pub.id).map((a) => a.webhookId)).size).toBe(1);
  });

  it("provider 400: failed, not retryable, and the user is told to edit", async () => {
    const { owner, pub } = await publication("Refuse me");
    receiver.failNext(1, 400);
    await publishNow(owner.token, pub.id, 1);
    expect(await runPipeline(pub.id)).toBe("failed");
    const rendition = (await read(owner.token, pub.id)).renditions[0];
    expect(rendition).toMatchObject({ status: "failed", error_retryable: false, error_http_status: 400, error_action: expect.stringMatching(/edit/i) });
    expect(rendition.delivery).toMatchObject({ state: "failed", recovery_action: "edit_content", terminal_reason: expect.stringContaining("not_retryable") });
    expect(attemptsFor(pub.id)).toHaveLength(1);
    // Fixing the text and publishing again works: the failed publication is editable.
    const edited = await client(owner.token).PUT("/publications/{id}", {
      params: { path: { id: pub.id } },
      body: { expected_revision: 2, source_text: "Fixed" },
    });
    expectData(edited);
    await publishNow(owner.token, pub.id, 3);
    expect(await runPipeline(pub.id)).toBe("published");
  });

  it("twenty concurrent publish-now with one Idempotency-Key queue one job", async () => {
    const { owner, pub } = await publication("Only once");
    const results = await Promise.all(Array.from({ length: 20 }, () => publishNow(owner.token, pub.id, 1, "same-key")));
    for (const r of results) expect([202, 409]).toContain(r.response.status);
    const jobIds = new Set(results.filter((r) => r.response.status === 202).map((r) => r.data?.job_id));
    expect(jobIds.size).toBe(1);
    const jobs = await withDb((db) => db.select().from(outboxJobs));
    expect(jobs.filter((j) => (j.payload as { publication_id?: string }).publication_id === pub.id)).toHaveLength(1);
    expect(await runPipeline(pub.id)).toBe("published");
    expect(deliveriesFor(pub.id)).toHaveLength(1);
  });

  it("a delivery whose outcome is unknown (timeout) is reconciled, not blindly repeated", async () => {
    const { owner, pub } = await publication("Did it arrive?");
    receiver.hangNext(1);
    await publishNow(owner.token, pub.id, 1);
    await runPipeline(pub.id, { until: () => true, timeoutMs: 60_000 });
    const [row] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, pub.id)));
    expect(row.status).toBe("reconciling");
    const attempts = await withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, row.id)));
    expect(attempts[0].outcome).toBe("unknown");
    await makeDueNow(pub.id);
    expect(await runPipeline(pub.id)).toBe("published");
    // The receiver got the same webhook-id twice and kept one delivery.
    expect(attemptsFor(pub.id)).toHaveLength(2);
    expect(deliveriesFor(pub.id)).toHaveLength(1);
    const after = (await read(owner.token, pub.id)).renditions[0];
    expect(after.delivery.last_reconciled_at).not.toBeNull();
  }, 90_000);
});
