import { describe, expect, it } from "vitest";
import { decideAfterFailure } from "../lib/delivery/rules";
import { decide } from "../lib/events/rules";
import { analyticsBackoffMs, analyticsBackoffUntil, MAX_ATTEMPTS, relayBackoffMs, retryDelaySeconds } from "../lib/jobs/retry-policy";

describe("retry policy (pure)", () => {
  it("consumer retries: the first three attempts fall within 90 s of the first failure, with jitter", () => {
    for (const r of [0, 0.5, 0.999]) expect(retryDelaySeconds(1, r) + retryDelaySeconds(2, r)).toBeLessThan(90);
    expect(retryDelaySeconds(1, 0)).not.toBe(retryDelaySeconds(1, 0.999));
    expect(retryDelaySeconds(20, 0.999)).toBeLessThanOrEqual(900 * 1.2);
  });

  it("the job and delivery curve: 5 s, 15 s, 45 s … capped at 15 min, never under a second", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelaySeconds(n, 0.5))).toEqual([5, 15, 45, 135, 405, 900, 900]);
    expect(retryDelaySeconds(0, 0)).toBe(4);
    expect(retryDelaySeconds(1, 0)).toBe(4);
    expect(retryDelaySeconds(1, 1)).toBe(6);
  });

  it("relay retries back off exponentially up to five minutes", () => {
    expect(relayBackoffMs(1, 1)).toBe(1000);
    expect(relayBackoffMs(3, 1)).toBe(4000);
    expect(relayBackoffMs(30, 1)).toBe(300_000);
    expect(relayBackoffMs(3, 0)).toBe(2000);
  });

  it("analytics waits 15 min, 30 min … up to a day, or the platform's Retry-After within a week", () => {
    expect([1, 2, 3].map(analyticsBackoffMs)).toEqual([15, 30, 60].map((m) => m * 60_000));
    expect(analyticsBackoffMs(100)).toBe(86_400_000);
    const now = new Date("2026-01-01T00:00:00Z");
    expect(analyticsBackoffUntil(1, now, new Date("2026-01-01T02:00:00Z")).toISOString()).toBe("2026-01-01T02:00:00.000Z");
    expect(analyticsBackoffUntil(1, now, new Date("2026-03-01T00:00:00Z")).toISOString()).toBe("2026-01-08T00:00:00.000Z");
    expect(analyticsBackoffUntil(1, now, new Date("2025-12-31T00:00:00Z")).toISOString()).toBe("2026-01-01T00:15:00.000Z");
  });

  it("publication and event deliveries both stop at the one cap of 8 attempts a round", () => {
    expect(MAX_ATTEMPTS).toBe(8);
    const failure = { kind: "unavailable", code: "http_500", retryable: true } as const;
    expect(decideAfterFailure(failure, MAX_ATTEMPTS - 1).status).toBe("retrying");
    expect(decideAfterFailure(failure, MAX_ATTEMPTS).status).toBe("failed");
    const answer = { ok: false, statusCode: 503, errorCode: "http_503", retryable: true } as const;
    expect(decide(answer, MAX_ATTEMPTS - 1).status).toBe("retrying");
    expect(decide(answer, MAX_ATTEMPTS).status).toBe("failed");
  });
});
