import { describe, expect, it } from "vitest";
import { convergedStatus, decideAfterFailure, MAX_DELIVERY_ATTEMPTS } from "../lib/publishing/status";

describe("publication convergence", () => {
  it("stays publishing until every rendition is terminal", () => {
    expect(convergedStatus(["published", "retrying"])).toBe("publishing");
    expect(convergedStatus(["published", "reconciling"])).toBe("publishing");
  });
  it("ends published, partially published or failed", () => {
    expect(convergedStatus(["published", "published"])).toBe("published");
    expect(convergedStatus(["published", "failed"])).toBe("partially_published");
    expect(convergedStatus(["failed", "failed"])).toBe("failed");
  });
});

describe("after a failed attempt", () => {
  it("retries what is retryable until the last attempt, then says what to do", () => {
    expect(decideAfterFailure({ kind: "unavailable", retryable: true }, 1).status).toBe("retrying");
    const last = decideAfterFailure({ kind: "unavailable", retryable: true }, MAX_DELIVERY_ATTEMPTS);
    expect(last).toMatchObject({ status: "failed", recoveryAction: "retry_later", terminalReason: `gave_up_after_${MAX_DELIVERY_ATTEMPTS}_attempts` });
  });
  it("stops at once on a refusal and tells the user to edit", () => {
    expect(decideAfterFailure({ kind: "validation", retryable: false }, 1)).toMatchObject({ status: "failed", recoveryAction: "edit_content" });
    expect(decideAfterFailure({ kind: "authentication", retryable: false }, 1).recoveryAction).toBe("reconnect_account");
  });
  it("reconciles when the outcome is unknown instead of posting again", () => {
    expect(decideAfterFailure({ kind: "network", retryable: true, outcomeUnknown: true }, 3).status).toBe("reconciling");
  });
});
