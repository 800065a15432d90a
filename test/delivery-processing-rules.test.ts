import { describe, expect, it } from "vitest";
import { decideAfterFailure, PROCESSING_UNFINISHED } from "../lib/delivery/rules";
import { MAX_ATTEMPTS } from "../lib/jobs/retry-policy";
import { PROCESSING_CODE } from "../lib/providers/platform-processing";

/** A platform's video processing as a delivery state (lib/delivery/rules.ts): polled on the retry schedule, bounded by the attempts. */
describe("platform processing", () => {
  const processing = { kind: "unavailable" as const, code: PROCESSING_CODE, retryable: true };

  it("is polled again with backoff while attempts remain", () => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const d = decideAfterFailure(processing, attempt, 0.5);
      expect(d).toMatchObject({ status: "retrying", errorCode: PROCESSING_CODE, recoveryAction: "none" });
      expect(d.retryInSeconds).toBeGreaterThan(0);
    }
  });

  it("ends failed after the last attempt, telling the person to look before publishing again", () => {
    expect(decideAfterFailure(processing, MAX_ATTEMPTS)).toEqual(PROCESSING_UNFINISHED);
    expect(PROCESSING_UNFINISHED).toMatchObject({ status: "failed", recoveryAction: "verify_on_platform" });
  });

  it("a processing failure the platform reports ends at once with its reason code", () => {
    expect(decideAfterFailure({ kind: "validation", code: "processing_failed", retryable: false }, 1)).toMatchObject({
      status: "failed",
      errorCode: "processing_failed",
      recoveryAction: "edit_content",
    });
  });
});
