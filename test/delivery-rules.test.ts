import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attemptOfRound, decideAfterFailure, decideBeforeAttempt, decideStalled, isTerminal } from "../lib/delivery/rules";
import { MAX_ATTEMPTS, retryDelaySeconds } from "../lib/jobs/retry-policy";
import { convergedStatus } from "../lib/publishing/status";
import type { RenditionStatus } from "../db/schema/publications";

// lib/delivery/rules.ts: a delivery's states and rules, without a database or a clock.

describe("publication convergence", () => {
  it("stays publishing until every rendition is terminal", () => {
    expect(convergedStatus(["published", "retrying"])).toBe("publishing");
    expect(convergedStatus(["published", "reconciling"])).toBe("publishing");
    expect(convergedStatus(["canceled", "publishing"])).toBe("publishing");
  });
  it("ends published, partially published or failed; draft when a cancel left nothing posted", () => {
    expect(convergedStatus(["published", "published"])).toBe("published");
    expect(convergedStatus(["published", "failed"])).toBe("partially_published");
    expect(convergedStatus(["published", "canceled"])).toBe("partially_published");
    expect(convergedStatus(["failed", "failed"])).toBe("failed");
    expect(convergedStatus(["failed", "canceled"])).toBe("draft");
    expect(convergedStatus(["canceled"])).toBe("draft");
  });
});

describe("after a failed attempt", () => {
  it("retries what is retryable until the last attempt, then says what to do", () => {
    expect(decideAfterFailure({ kind: "unavailable", code: "http_500", retryable: true }, 1).status).toBe("retrying");
    const last = decideAfterFailure({ kind: "unavailable", code: "http_500", retryable: true }, MAX_ATTEMPTS);
    expect(last).toMatchObject({
      status: "failed",
      recoveryAction: "retry_later",
      terminalReason: `gave_up_after_${MAX_ATTEMPTS}_attempts`,
      retryInSeconds: null,
    });
  });
  it("stops at once on a refusal and tells the user to edit", () => {
    expect(decideAfterFailure({ kind: "validation", code: "InvalidRequest", retryable: false }, 1)).toMatchObject({
      status: "failed",
      recoveryAction: "edit_content",
    });
    expect(decideAfterFailure({ kind: "authentication", code: "http_401", retryable: false }, 1).recoveryAction).toBe("reconnect_account");
  });
  it("reconciles an unknown outcome, but not beyond the last attempt: then outcome-unknown, verify on the platform", () => {
    const unknown = { kind: "network" as const, code: "timeout", retryable: true, outcomeUnknown: true };
    expect(decideAfterFailure(unknown, 3).status).toBe("reconciling");
    expect(decideAfterFailure(unknown, MAX_ATTEMPTS)).toMatchObject({
      status: "failed",
      errorCode: "outcome-unknown",
      recoveryAction: "verify_on_platform",
      retryInSeconds: null,
    });
  });
  it("ends at once, verify on the platform, when the platform can never say (reconcile reports it unverifiable)", () => {
    const unverifiable = { kind: "unknown" as const, code: "outcome_unverifiable", retryable: true, outcomeUnknown: true, unverifiable: true };
    expect(decideAfterFailure(unverifiable, 2)).toMatchObject({
      status: "failed",
      errorCode: "outcome-unknown",
      recoveryAction: "verify_on_platform",
      retryInSeconds: null,
    });
  });
  it("waits at least as long as the platform asked", () => {
    expect(decideAfterFailure({ kind: "rate_limited", code: "http_429", retryable: true, retryAfterSeconds: 600 }, 1, 0.5).retryInSeconds).toBe(600);
    expect(decideAfterFailure({ kind: "rate_limited", code: "http_429", retryable: true }, 1, 0.5).retryInSeconds).toBe(5);
  });
  it("whatever happens, a rendition ends by its 8th attempt (property)", () => {
    const failure = fc.record({
      kind: fc.constantFrom("validation", "authentication", "configuration", "rate_limited", "unavailable", "network", "unknown" as const),
      code: fc.string(),
      retryable: fc.boolean(),
      outcomeUnknown: fc.boolean(),
      retryAfterSeconds: fc.option(fc.nat(100_000), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(failure, { minLength: MAX_ATTEMPTS, maxLength: MAX_ATTEMPTS }), (failures) => {
        let ended = false;
        failures.forEach((f, i) => {
          if (ended) return;
          const d = decideAfterFailure(f, i + 1);
          if (d.status === "failed") ended = true;
          else expect(d.retryInSeconds).toBeGreaterThan(0);
        });
        expect(ended).toBe(true);
      }),
    );
  });
});

describe("before an attempt", () => {
  it("goes ahead while attempts of the round remain", () => {
    expect(decideBeforeAttempt({ status: "queued", attemptCount: 0, attemptsBeforeRound: 0 })).toBeNull();
    expect(decideBeforeAttempt({ status: "retrying", attemptCount: 7, attemptsBeforeRound: 0 })).toBeNull();
    // Publishing again starts a new round.
    expect(decideBeforeAttempt({ status: "queued", attemptCount: 8, attemptsBeforeRound: 8 })).toBeNull();
    expect(attemptOfRound({ attemptCount: 10, attemptsBeforeRound: 8 })).toBe(3);
  });
  it("ends a rendition whose attempts are used up: retry, or verify on the platform when the last may have gone out", () => {
    expect(decideBeforeAttempt({ status: "retrying", attemptCount: 8, attemptsBeforeRound: 0 })).toMatchObject({ status: "failed", recoveryAction: "retry" });
    expect(decideBeforeAttempt({ status: "publishing", attemptCount: 8, attemptsBeforeRound: 0 })).toMatchObject({
      status: "failed",
      errorCode: "outcome-unknown",
    });
  });
  it("a stalled delivery ends with retry, or outcome-unknown when in doubt", () => {
    expect(decideStalled({ status: "queued" })).toMatchObject({ status: "failed", recoveryAction: "retry" });
    expect(decideStalled({ status: "reconciling" })).toMatchObject({ status: "failed", recoveryAction: "verify_on_platform" });
  });
});

describe("backoff", () => {
  it("puts the first three attempts within 90 s of the first failure and caps at 15 minutes", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b) => retryDelaySeconds(1, a) + retryDelaySeconds(2, b) <= 90,
      ),
    );
    expect(retryDelaySeconds(20, 1)).toBeLessThanOrEqual(900 * 1.2);
  });
  it("knows the terminal states", () => {
    const all: RenditionStatus[] = ["pending", "queued", "publishing", "retrying", "reconciling", "published", "failed", "canceled"];
    expect(all.filter(isTerminal)).toEqual(["published", "failed", "canceled"]);
  });
});
