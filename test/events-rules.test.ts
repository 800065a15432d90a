import { describe, expect, it } from "vitest";
import { classifyAnswer, decide, DISABLE_AFTER_FAILED_DELIVERIES, disabledReason } from "../lib/events/rules";
import { MAX_ATTEMPTS } from "../lib/jobs/retry-policy";
import { sign, standardWebhookHeaders } from "../lib/standard-webhooks";
import { verifySignature } from "./peers/webhook-receiver";

/** lib/events/rules.ts (pure) and the shared Standard Webhooks signing. */

describe("an attempt's answer", () => {
  it("2xx delivers; 408, 429 and 5xx are retried; other 4xx and redirects fail at once", () => {
    expect(classifyAnswer(204)).toEqual({ ok: true, statusCode: 204 });
    for (const status of [408, 429, 500, 502, 503, 504])
      expect(classifyAnswer(status)).toMatchObject({ ok: false, retryable: true, errorCode: `http_${status}` });
    for (const status of [400, 401, 404, 410, 422]) expect(classifyAnswer(status)).toMatchObject({ ok: false, retryable: false });
    expect(classifyAnswer(302)).toMatchObject({ ok: false, retryable: false, errorCode: "redirect_not_followed" });
  });
});

describe("what follows an attempt", () => {
  const failure = { ok: false as const, statusCode: 500, errorCode: "http_500", retryable: true };

  it("the first three attempts fall within 90 s of the first failure, whatever the jitter (CONTRACT §4)", () => {
    for (const random of [0, 0.5, 0.999]) {
      const waits = [1, 2].map((n) => decide(failure, n, random)).map((d) => (d.status === "retrying" ? d.retryInSeconds : Infinity));
      expect(waits[0] + waits[1]).toBeLessThanOrEqual(90);
      expect(waits[0]).toBeGreaterThanOrEqual(1);
    }
  });

  it(`at most ${MAX_ATTEMPTS} attempts a round, then failed; a network failure is retried, a refusal is not`, () => {
    expect(decide(failure, MAX_ATTEMPTS - 1).status).toBe("retrying");
    expect(decide(failure, MAX_ATTEMPTS).status).toBe("failed");
    expect(decide({ ok: false, statusCode: null, errorCode: "timeout", retryable: true }, 1).status).toBe("retrying");
    expect(decide({ ok: false, statusCode: null, errorCode: "url_refused", retryable: false }, 1).status).toBe("failed");
    expect(decide({ ok: true, statusCode: 200 }, 5)).toEqual({ status: "delivered" });
  });

  it("the reason an endpoint was disabled names the count and the last answer, nothing of the content", () => {
    expect(disabledReason({ ok: false, statusCode: 503, errorCode: "http_503", retryable: true })).toContain(
      `${DISABLE_AFTER_FAILED_DELIVERIES} consecutive deliveries failed`,
    );
    expect(disabledReason({ ok: false, statusCode: 503, errorCode: "http_503", retryable: true })).toContain("HTTP 503");
    expect(disabledReason({ ok: false, statusCode: null, errorCode: "timeout", retryable: true })).toContain("timeout");
  });
});

describe("Standard Webhooks signing (lib/standard-webhooks.ts)", () => {
  it("signs id.timestamp.body as a receiver using node:crypto verifies it", async () => {
    const secret = `whsec_${Buffer.from("thirty-two bytes of secret here!").toString("base64")}`;
    const headers = await standardWebhookHeaders("evt_1", '{"a":1}', secret, 1_700_000_000);
    expect(headers).toMatchObject({ "webhook-id": "evt_1", "webhook-timestamp": "1700000000" });
    expect(verifySignature(secret, "evt_1", "1700000000", '{"a":1}', headers["webhook-signature"])).toBe(true);
    expect(verifySignature(secret, "evt_2", "1700000000", '{"a":1}', headers["webhook-signature"])).toBe(false);
    expect(await sign(secret, "evt_1", 1_700_000_000, '{"a":1}')).toBe(headers["webhook-signature"]);
  });

  it("sends no signature without a secret", async () => {
    expect(await standardWebhookHeaders("evt_1", "{}", undefined)).not.toHaveProperty("webhook-signature");
  });
});
