import { MAX_ATTEMPTS, retryDelaySeconds } from "../jobs/retry-policy";

/**
 * How outbound event deliveries end (CONTRACT §4 and §9): pure, no clock, no database. An attempt's answer is
 * classified; 2xx delivers, 408, 429, 5xx and network failures are retried on the publish path's schedule (the
 * first three attempts within 90 s), at most 8 attempts a round, and anything else fails at once.
 */

/** Consecutive deliveries ending `failed` after which an endpoint is disabled. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 10;
/** How long an attempt holds its delivery: longer than the send's timeout, shorter than a queue's 60 s visibility. */
export const ATTEMPT_LEASE_SECONDS = 30;
export const SEND_TIMEOUT_MS = 10_000;

/** One attempt's answer: a status code when the endpoint answered, an error code when it did not (or was refused). */
export type AttemptResult = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; errorCode: string; retryable: boolean };

export function classifyAnswer(statusCode: number): AttemptResult {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
  const retryable = statusCode === 408 || statusCode === 429 || statusCode >= 500;
  // A redirect is not followed (a public URL could lead to a private one): the endpoint's URL needs changing.
  const errorCode = statusCode >= 300 && statusCode < 400 ? "redirect_not_followed" : `http_${statusCode}`;
  return { ok: false, statusCode, errorCode, retryable };
}

export type DeliveryDecision = { status: "delivered" } | { status: "retrying"; retryInSeconds: number } | { status: "failed" };

/** What follows attempt number `roundAttempt` (1-based, within its round). */
export function decide(result: AttemptResult, roundAttempt: number, random = Math.random()): DeliveryDecision {
  if (result.ok) return { status: "delivered" };
  if (!result.retryable || roundAttempt >= MAX_ATTEMPTS) return { status: "failed" };
  return { status: "retrying", retryInSeconds: retryDelaySeconds(roundAttempt, random) };
}

/** Why an endpoint was disabled, for its admins (GET /webhook-endpoints): a count and the last answer, never content. */
export function disabledReason(result: AttemptResult): string {
  const last = result.statusCode !== null ? `HTTP ${result.statusCode}` : result.ok ? "" : result.errorCode;
  return `${DISABLE_AFTER_FAILED_DELIVERIES} consecutive deliveries failed (the last answer: ${last}); once it accepts events again, enable it (PATCH with enabled: true).`;
}
