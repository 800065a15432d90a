import { describe, expect, it } from "vitest";
import { nextPacificMidnight, youtubeError } from "../lib/platforms/youtube/api";

/**
 * YouTube's daily quota (403 quotaExceeded, per the Data API's Errors page and quota guide) resets at midnight
 * Pacific time: a delivery refused for it retries then, not on its short backoff that would spend every attempt.
 */

const google = (status: number, reason: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code: status, message: reason, errors: [{ reason, domain: "youtube.quota" }] } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

describe("YouTube quota reset", () => {
  it("the next midnight in Los Angeles: PST (UTC-8), PDT (UTC-7), and the nights the clocks change", () => {
    expect(nextPacificMidnight(new Date("2026-11-26T15:00:00Z")).toISOString()).toBe("2026-11-27T08:00:00.000Z");
    expect(nextPacificMidnight(new Date("2026-07-01T06:59:59Z")).toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(nextPacificMidnight(new Date("2026-07-01T07:00:00Z")).toISOString()).toBe("2026-07-02T07:00:00.000Z");
    // 2026-03-08 02:00 PST → 03:00 PDT: that day has 23 hours; 2026-11-01 02:00 PDT → 01:00 PST: 25 hours.
    expect(nextPacificMidnight(new Date("2026-03-08T09:00:00Z")).toISOString()).toBe("2026-03-09T07:00:00.000Z");
    expect(nextPacificMidnight(new Date("2026-11-01T08:00:00Z")).toISOString()).toBe("2026-11-02T08:00:00.000Z");
  });

  it("403 quotaExceeded is rate_limited until midnight Pacific; a Retry-After, when given, wins", async () => {
    const now = new Date("2026-11-26T15:00:00Z");
    const spent = await youtubeError(google(403, "quotaExceeded"), now);
    expect(spent.info).toMatchObject({ kind: "rate_limited", code: "quotaExceeded", httpStatus: 403, retryable: true });
    expect(spent.info.retryAt?.toISOString()).toBe("2026-11-27T08:00:00.000Z");
    const short = await youtubeError(google(429, "rateLimitExceeded", { "retry-after": "120" }), now);
    expect(short.info).toMatchObject({ kind: "rate_limited", code: "rateLimitExceeded", httpStatus: 429 });
    expect(short.info.retryAt!.getTime()).toBeGreaterThan(Date.now() + 100_000);
    const forbidden = await youtubeError(google(403, "forbidden"), now);
    expect(forbidden.info.kind).not.toBe("rate_limited");
  });
});
