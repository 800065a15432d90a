import type { RenditionStatus } from "../../db/schema/publications";
import { MAX_ATTEMPTS, retryDelaySeconds } from "../jobs/retry-policy";
import { PROCESSING_CODE } from "../providers/platform-processing";
import type { ProviderErrorKind } from "../providers/types";

/**
 * A delivery's states and rules (CONTRACT §4 and §9 "Every delivery ends"), as pure functions: what the
 * store (./store.ts) writes is decided here, and nothing here reads a clock. Times are durations that the
 * database adds to its own `now()`.
 *
 * The life of a rendition:
 *   queued ─claim─▶ publishing ─posted─▶ published
 *                      │  └─failure─▶ retrying | reconciling ─claim─▶ publishing …   (attempts 2‥8)
 *                      └─ any failure on the 8th attempt, or a refusal ─▶ failed
 *   queued | retrying ─cancel─▶ canceled
 * `published`, `failed` and `canceled` are terminal. A claim holds the rendition for one attempt
 * (`current_attempt_id`) under a lease; every write of that attempt applies only while the rendition still
 * carries its attempt id, so a delivery that lost its lease (paused, slow, killed) changes nothing.
 */

/** How long a claim holds a rendition; renewed before every provider call and while one runs. */
export const LEASE_SECONDS = 120;

/** While a provider call runs, the lease is renewed this often (well inside LEASE_SECONDS). */
export const LEASE_RENEW_EVERY_SECONDS = 30;

/**
 * A rendition due for this long without a live lease has lost its delivery (its job dead-lettered, lost, or
 * its Worker killed): the sweep queues a new job for it. With the lease, the sweep's minute and one re-sweep
 * this keeps every stalled rendition within CONTRACT §9's 15 minutes.
 */
export const STALLED_AFTER_SECONDS = 180;

/** A publication swept once is not swept again for this long: the job it got is given time to run. */
export const RESWEEP_AFTER_SECONDS = 300;

// A publication's statuses and convergence are lib/publishing/status.ts's; delivery reads them from there.
export { isTerminal } from "../publishing/status";

/** A rendition in one of these may be claimed by a delivery (when due and not held). */
export const CLAIMABLE: RenditionStatus[] = ["queued", "retrying", "reconciling", "publishing"];

/** In one of these an earlier attempt may have reached the platform: it is reconciled before anything is sent. */
export const inDoubt = (s: RenditionStatus) => s === "publishing" || s === "reconciling";

export interface FailureInfo {
  kind: ProviderErrorKind;
  code: string;
  retryable: boolean;
  /** The request may have taken effect (timeout, cut connection, 504 after sending, a crash mid-call). */
  outcomeUnknown?: boolean;
  /** With outcomeUnknown: the platform can never say what was posted, so reconciling again cannot help. */
  unverifiable?: boolean;
  /** Seconds from now the platform asked us to wait (Retry-After, rate-limit reset). */
  retryAfterSeconds?: number;
}

/** Delivery.recovery_action values: what a person can do next (`none` while Herald still works on it). */
export const RECOVERY_ACTIONS = ["none", "edit_content", "reconnect_account", "check_destination", "retry_later", "retry", "verify_on_platform"] as const;

/** What a failed attempt (or a claim that may not attempt) writes on the rendition. */
export interface FailureDecision {
  status: "retrying" | "reconciling" | "failed";
  /** Delivery.recovery_action: the next step for a person; `none` while Herald still works on it. */
  recoveryAction: (typeof RECOVERY_ACTIONS)[number];
  /** Rendition.error_action: one sentence telling the person what to do. */
  errorAction: string;
  /** error_code: the platform's code, or Herald's own when Herald ended the delivery. */
  errorCode: string;
  terminalReason: string | null;
  /** Seconds from the database's now() until the next attempt; null once failed. */
  retryInSeconds: number | null;
}

const ACTIONS: Record<ProviderErrorKind, { recovery: FailureDecision["recoveryAction"]; action: string }> = {
  validation: { recovery: "edit_content", action: "The platform refused this post as written: edit the rendition and publish again." },
  authentication: { recovery: "reconnect_account", action: "The account's credentials were refused: reconnect the account, then publish again." },
  configuration: { recovery: "check_destination", action: "The destination is misconfigured (address or settings): fix the account, then publish again." },
  rate_limited: { recovery: "retry_later", action: "The platform is rate-limiting: publish again later." },
  unavailable: { recovery: "retry_later", action: "The platform kept failing: publish again later." },
  network: { recovery: "retry_later", action: "The platform could not be reached: publish again later." },
  unknown: { recovery: "retry_later", action: "The platform kept failing: publish again later." },
};

/** The rendition ends without knowing whether its last attempt reached the platform (CONTRACT §9). */
export const OUTCOME_UNKNOWN = {
  status: "failed",
  recoveryAction: "verify_on_platform",
  errorCode: "outcome-unknown",
  errorAction: `Herald could not confirm whether this post went out after ${MAX_ATTEMPTS} attempts: look at the account on the platform before publishing again.`,
  terminalReason: "outcome_unknown",
  retryInSeconds: null,
} as const satisfies FailureDecision;

/** The same end, reached at once: the platform cannot be asked, so waiting out the attempts would tell nothing more. */
export const OUTCOME_UNVERIFIABLE = {
  ...OUTCOME_UNKNOWN,
  errorAction:
    "The platform cannot tell Herald whether this post went out, and Herald will not send it twice: look at the account on the platform before publishing again.",
} as const satisfies FailureDecision;

/** A platform still processing an uploaded video when the attempts ran out (see decideAfterFailure). */
export const PROCESSING_UNFINISHED = {
  status: "failed",
  recoveryAction: "verify_on_platform",
  errorCode: PROCESSING_CODE,
  errorAction: `The platform was still processing the video after Herald's ${MAX_ATTEMPTS} checks: look at the account on the platform before publishing again.`,
  terminalReason: "platform_processing_unfinished",
  retryInSeconds: null,
} as const satisfies FailureDecision;

/** The number, within its round, of the attempt about to run on a rendition read as it was before its claim. */
export const attemptOfRound = (rendition: { attemptCount: number; attemptsBeforeRound: number }) => rendition.attemptCount - rendition.attemptsBeforeRound + 1;

/** What attempt number `attempt` (of its round) failing with `info` means: try again, reconcile, or stop and say what to do. */
export function decideAfterFailure(info: FailureInfo, attempt: number, random = Math.random()): FailureDecision {
  const more = attempt < MAX_ATTEMPTS;
  const wait = Math.max(retryDelaySeconds(attempt, random), Math.ceil(info.retryAfterSeconds ?? 0));
  if (info.outcomeUnknown) {
    if (info.unverifiable) return OUTCOME_UNVERIFIABLE;
    if (!more) return OUTCOME_UNKNOWN;
    return {
      status: "reconciling",
      recoveryAction: "none",
      errorCode: info.code,
      errorAction: "Checking with the platform whether the post went out before trying again.",
      terminalReason: null,
      retryInSeconds: wait,
    };
  }
  if (info.retryable && more) {
    return {
      status: "retrying",
      recoveryAction: "none",
      errorCode: info.code,
      errorAction: "Herald will retry automatically.",
      terminalReason: null,
      retryInSeconds: wait,
    };
  }
  // A video the platform was still processing after every attempt (issue 29, lib/providers/platform-processing.ts):
  // it is uploaded and may yet appear, so publishing again could post it twice; the person looks first.
  if (info.code === PROCESSING_CODE) return PROCESSING_UNFINISHED;
  const { recovery, action } = ACTIONS[info.kind];
  return {
    status: "failed",
    recoveryAction: recovery,
    errorCode: info.code,
    errorAction: action,
    terminalReason: info.retryable ? `gave_up_after_${attempt}_attempts` : `not_retryable_${info.kind}`,
    retryInSeconds: null,
  };
}

/**
 * Before a claimed attempt runs: a rendition that has used every attempt ends here instead of trying again
 * (a consumer that crashes on it every time would otherwise hold it forever). Null: go ahead.
 */
export function decideBeforeAttempt(rendition: { status: RenditionStatus; attemptCount: number; attemptsBeforeRound: number }): FailureDecision | null {
  const used = attemptOfRound(rendition) - 1;
  if (used < MAX_ATTEMPTS) return null;
  if (inDoubt(rendition.status)) return OUTCOME_UNKNOWN;
  return endedForRetry("attempts-exhausted", "Herald stopped after its last attempt could not finish", `gave_up_after_${used}_attempts`);
}

/**
 * A rendition whose delivery stopped and was not taken up again (CONTRACT §9): it ends `failed` with
 * `recovery_action: "retry"`, or `outcome-unknown` when the stopped attempt may have reached the platform.
 */
export function decideStalled(rendition: { status: RenditionStatus }): FailureDecision {
  if (inDoubt(rendition.status)) return OUTCOME_UNKNOWN;
  return endedForRetry("delivery-stalled", "Herald's delivery of this rendition stopped and could not be resumed", "stalled");
}

/** Herald ended a rendition that did not reach the platform: publishing again is safe, and is the advice. */
const endedForRetry = (errorCode: string, why: string, terminalReason: string): FailureDecision => ({
  status: "failed",
  recoveryAction: "retry",
  errorCode,
  errorAction: `${why}: publish again to retry.`,
  terminalReason,
  retryInSeconds: null,
});
