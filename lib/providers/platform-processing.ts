import { ProviderError } from "./types";

/**
 * A video platform's processing after the upload, as a delivery state (CONTRACT §9 "Every delivery ends"): the
 * adapter polls a few times within its attempt; while the platform is still processing, the attempt ends
 * `retrying` with error_code `platform-processing` and the delivery's retry schedule (lib/delivery/rules.ts)
 * polls again later, so processing is bounded by the delivery's 8 attempts and then ends `failed`, never stuck.
 */

/** Waits before each poll within one attempt (ms): short, the retry schedule does the long waits. */
export const POLL_WAITS_MS = [0, 1_000, 3_000];

export type Processing = { state: "done"; id: string; url: string } | { state: "failed"; reason: string } | { state: "pending"; detail: string };

export const PROCESSING_CODE = "platform-processing";

/**
 * Polls until the platform is done. `forget` drops what the upload kept (its checkpoint) when the platform says the
 * video failed for good, so a later round uploads afresh rather than polling a dead one.
 */
export async function awaitProcessing(poll: () => Promise<Processing>, forget?: () => Promise<void>): Promise<{ id: string; url: string }> {
  let last: Processing = { state: "pending", detail: "not asked yet" };
  for (const wait of POLL_WAITS_MS) {
    if (wait) await new Promise((r) => setTimeout(r, wait));
    last = await poll();
    if (last.state === "done") return { id: last.id, url: last.url };
    if (last.state === "failed") {
      await forget?.();
      throw new ProviderError(`The platform could not process the video: ${last.reason.slice(0, 300)}`, {
        kind: "validation",
        code: "processing_failed",
        retryable: false,
      });
    }
  }
  throw new ProviderError(`The platform is still processing the video (${last.state === "pending" ? last.detail : ""}); Herald will check again.`, {
    kind: "unavailable",
    code: PROCESSING_CODE,
    retryable: true,
  });
}
