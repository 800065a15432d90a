import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../local/services/ports";
import { secretBytes, sign, webhookAdapter } from "../lib/platforms/webhook/adapter";
import { accountContext, recordingProgress, rendition, providerFailure } from "./peers/adapter-context";
import { startWebhookReceiver, verifySignature, type WebhookPeer } from "./peers/webhook-receiver";

/** The webhook adapter against a local receiver that verifies Standard Webhooks signatures with node:crypto. */

const WHSEC = `whsec_${Buffer.from("a 24-byte secret, binary").toString("base64")}`;
let signed: WebhookPeer;
let plain: WebhookPeer;
let unsigned: WebhookPeer;

beforeAll(async () => {
  [signed, plain, unsigned] = await Promise.all([
    startWebhookReceiver({ secret: WHSEC }),
    startWebhookReceiver({ secret: "plain text secret" }),
    startWebhookReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([signed.stop(), plain.stop(), unsigned.stop()]);
});

const account = (peer: WebhookPeer, secret?: string) => accountContext({ platform: "webhook", url: peer.url, credentials: secret ? { secret } : {} });

describe("webhook adapter", () => {
  it("posts one signed request per rendition with every segment; whsec_ secrets are keyed by their decoded bytes", async () => {
    const r = rendition(["first", "second", "third"], {}, { url: "https://example.com/a" });
    r.segments[1].media = [{ url: "https://cdn.example.com/x.png", mime_type: "image/png", alt_text: "a picture" }];
    const progress = recordingProgress();
    const result = await webhookAdapter.publish(account(signed, WHSEC), r, progress);
    const got = signed.attempts.filter((a) => a.webhookId === r.deliveryKey);
    expect(got).toHaveLength(1);
    expect(got[0].signatureValid).toBe(true);
    expect(got[0].body).toEqual({
      type: "rendition.publish",
      publication_id: r.publicationId,
      rendition_id: r.renditionId,
      title: "A title",
      segments: [
        { position: 0, title: null, body: "first", url: "https://example.com/a", media: [] },
        {
          position: 1,
          title: null,
          body: "second",
          url: "https://example.com/a",
          media: [{ url: "https://cdn.example.com/x.png", mime_type: "image/png", alt_text: "a picture" }],
        },
        { position: 2, title: null, body: "third", url: "https://example.com/a", media: [] },
      ],
    });
    expect(Number(got[0].timestamp)).toBeGreaterThan(Date.now() / 1000 - 60);
    // The receiver's {id, url} answer becomes the external id and URL.
    expect(result.external_id).toBe(`rcv_${r.deliveryKey.slice(-12)}`);
    expect(result.external_url).toMatch(/\/posts\/rcv_/);
    expect(progress.calls.map(([p]) => p)).toEqual([0, 1, 2]);
    // The key really is the decoded bytes: keyed by the literal text, the signature would not verify.
    expect(verifySignature(WHSEC.slice(6), got[0].webhookId, got[0].timestamp, got[0].raw, got[0].signature!)).toBe(false);
    expect(secretBytes(WHSEC)).toHaveLength(24);
  });

  it("keys a plain secret by its UTF-8 bytes, and sends no signature without a secret", async () => {
    const r = rendition(["héllo ✨"]);
    await webhookAdapter.publish(account(plain, "plain text secret"), r, recordingProgress());
    expect(plain.attempts.at(-1)!.signatureValid).toBe(true);
    const u = rendition(["no secret"]);
    await webhookAdapter.publish(account(unsigned), u, recordingProgress());
    expect(unsigned.attempts.at(-1)!.signature).toBeNull();
  });

  it("signs exactly `v1,` + base64 HMAC-SHA256 of id.timestamp.body (a known vector)", async () => {
    // Computed independently with node:crypto in the receiver's verifier.
    const sig = await sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(sig).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    expect(verifySignature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", '{"test": 2432232314}', sig)).toBe(true);
  });

  it("500 twice then 200: retryable errors, the same webhook-id every time, one accepted delivery", async () => {
    const r = rendition(["retry me"]);
    signed.failNext(2, 500);
    for (let i = 0; i < 2; i++) {
      const err = await providerFailure(webhookAdapter.publish(account(signed, WHSEC), r, recordingProgress()));
      expect(err.info).toMatchObject({ kind: "unavailable", code: "http_500", httpStatus: 500, retryable: true });
    }
    await webhookAdapter.publish(account(signed, WHSEC), r, recordingProgress());
    const attempts = signed.attempts.filter((a) => a.body?.rendition_id === r.renditionId);
    expect(attempts.map((a) => a.answeredWith)).toEqual([500, 500, 200]);
    expect(new Set(attempts.map((a) => a.webhookId))).toEqual(new Set([r.deliveryKey]));
    expect(attempts.every((a) => a.signatureValid)).toBe(true);
    expect(signed.deliveries.filter((d) => d.webhookId === r.deliveryKey)).toHaveLength(1);
  });

  it("a repeated delivery after success reuses its webhook-id, so the receiver drops it as a duplicate", async () => {
    const r = rendition(["twice?"]);
    await webhookAdapter.publish(account(signed, WHSEC), r, recordingProgress());
    await webhookAdapter.publish(account(signed, WHSEC), r, recordingProgress());
    const attempts = signed.attempts.filter((a) => a.webhookId === r.deliveryKey);
    expect(attempts.map((a) => a.duplicate)).toEqual([false, true]);
    expect(signed.deliveries.filter((d) => d.webhookId === r.deliveryKey)).toHaveLength(1);
  });

  it("does not send again when the pipeline already recorded the rendition as delivered", async () => {
    const r = rendition(["done already"]);
    const before = signed.attempts.length;
    const result = await webhookAdapter.publish(account(signed, WHSEC), r, recordingProgress(new Map([[0, { id: "rcv_x", url: "https://r/x" }]])));
    expect(result).toEqual({ external_id: "rcv_x", external_url: "https://r/x" });
    expect(signed.attempts.length).toBe(before);
  });

  it("classifies 400 (not retryable), 408 and 429 with Retry-After (retryable)", async () => {
    signed.failNext(1, 400);
    expect((await providerFailure(webhookAdapter.publish(account(signed, WHSEC), rendition(["x"]), recordingProgress()))).info).toMatchObject({
      kind: "validation",
      httpStatus: 400,
      retryable: false,
    });
    signed.failNext(1, 408);
    expect((await providerFailure(webhookAdapter.publish(account(signed, WHSEC), rendition(["x"]), recordingProgress()))).info).toMatchObject({
      httpStatus: 408,
      retryable: true,
    });
    signed.failNext(1, 429, { retryAfter: 120 });
    const limited = await providerFailure(webhookAdapter.publish(account(signed, WHSEC), rendition(["x"]), recordingProgress()));
    expect(limited.info).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryable: true });
    expect(limited.info.retryAt!.getTime()).toBeGreaterThan(Date.now() + 100_000);
    expect(limited.info.retryAt!.getTime()).toBeLessThan(Date.now() + 125_000);
  });

  it("a receiver that takes the delivery and never answers: timeout, retryable, outcome unknown", async () => {
    const r = rendition(["hang"]);
    signed.hangNext(1);
    const { providerFetch } = await import("../lib/providers/http");
    // The adapter's own timeout is 15 s; the same path with a short one keeps the test quick.
    const err = await providerFailure(providerFetch(signed.url, { method: "POST", body: "{}", allowPrivateUrls: true, timeoutMs: 300, mutating: true }));
    expect(err.info).toMatchObject({ kind: "network", code: "timeout", retryable: true, outcomeUnknown: true });
    // Reconciliation for webhooks is re-sending with the same webhook-id: nothing is reported found.
    expect((await webhookAdapter.reconcile(account(signed, WHSEC), r)).size).toBe(0);
  });

  it("a refused connection is retryable and known not to have been sent", async () => {
    const closed = await freePort(); // nothing listens there
    const err = await providerFailure(
      webhookAdapter.publish(accountContext({ platform: "webhook", url: `http://127.0.0.1:${closed}/hook` }), rendition(["x"]), recordingProgress()),
    );
    expect(err.info).toMatchObject({ kind: "network", code: "ECONNREFUSED", retryable: true, outcomeUnknown: false });
  });

  it("refuses a private URL without ALLOW_PRIVATE_URLS, before sending anything", async () => {
    const before = signed.attempts.length;
    const err = await providerFailure(
      webhookAdapter.publish(accountContext({ platform: "webhook", url: signed.url, allowPrivateUrls: false }), rendition(["x"]), recordingProgress()),
    );
    expect(err.info).toMatchObject({ kind: "configuration", code: "url_refused", retryable: false });
    expect(signed.attempts.length).toBe(before);
  });
});
