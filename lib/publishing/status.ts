import type { PublicationStatus, RenditionStatus } from "../../db/schema/publications";
import type { ProviderErrorKind } from "../providers/types";

/** A rendition's columns without the last attempt's error (queued again, or published). */
export const RENDITION_ERROR_CLEARED = {
  errorKind: null,
  errorCode: null,
  errorMessage: null,
  errorHttpStatus: null,
  errorRetryable: false,
  errorRetryAt: null,
  errorAction: null,
  recoveryAction: "none" as const,
};

/** CONTRACT.md §5: which statuses fall in which activity bucket. */
export const BUCKET_STATUSES: Record<"draft" | "scheduled" | "published" | "failed", PublicationStatus[]> = {
  draft: ["draft"],
  scheduled: ["scheduled", "publishing"],
  published: ["published", "partially_published"],
  failed: ["failed"],
};

/** Statuses in which a publication may be edited or published again. */
export const EDITABLE: PublicationStatus[] = ["draft", "scheduled", "failed"];
export const PUBLISHABLE: PublicationStatus[] = ["draft", "scheduled", "failed", "partially_published"];

export const isTerminal = (s: RenditionStatus) => s === "published" || s === "failed" || s === "canceled";

/**
 * Where a publication stands once its renditions have moved: still publishing until every one is terminal;
 * then published, partially published or failed by what went out, and `draft` when nothing was posted and
 * some rendition was canceled (CONTRACT §9: a canceled publication that sent nothing is a draft again).
 */
export function convergedStatus(renditionStatuses: RenditionStatus[]): PublicationStatus {
  if (renditionStatuses.some((s) => !isTerminal(s))) return "publishing";
  const published = renditionStatuses.filter((s) => s === "published").length;
  if (published === renditionStatuses.length) return "published";
  if (published > 0) return "partially_published";
  return renditionStatuses.includes("canceled") ? "draft" : "failed";
}

/** Delivery attempts before a retryable failure becomes final (CONTRACT.md §4: at most 8). */
export const MAX_DELIVERY_ATTEMPTS = 8;

export interface FailureInfo {
  kind: ProviderErrorKind;
  retryable: boolean;
  outcomeUnknown?: boolean;
}

export interface FailureDecision {
  status: RenditionStatus;
  /** Machine-readable next step for a person (Delivery.recovery_action). */
  recoveryAction: string;
  /** One sentence telling the user what to do (Rendition.error_action). */
  errorAction: string;
  terminalReason: string | null;
}

const ACTIONS: Record<ProviderErrorKind, { recovery: string; action: string }> = {
  validation: { recovery: "edit_content", action: "The platform refused this post as written: edit the rendition and publish again." },
  authentication: { recovery: "reconnect_account", action: "The account's credentials were refused: reconnect the account, then publish again." },
  configuration: { recovery: "check_destination", action: "The destination is misconfigured (address or settings): fix the account, then publish again." },
  rate_limited: { recovery: "retry_later", action: "The platform is rate-limiting: publish again later." },
  unavailable: { recovery: "retry_later", action: "The platform kept failing: publish again later." },
  network: { recovery: "retry_later", action: "The platform could not be reached: publish again later." },
  unknown: { recovery: "retry_later", action: "The platform kept failing: publish again later." },
};

/** What a failed attempt means for the rendition: retry, reconcile, or stop and tell the user what to do. */
export function decideAfterFailure(info: FailureInfo, attempt: number): FailureDecision {
  if (info.outcomeUnknown) {
    return { status: "reconciling", recoveryAction: "none", errorAction: "Checking with the platform whether the post went out before trying again.", terminalReason: null };
  }
  if (info.retryable && attempt < MAX_DELIVERY_ATTEMPTS) {
    return { status: "retrying", recoveryAction: "none", errorAction: "Herald will retry automatically.", terminalReason: null };
  }
  const { recovery, action } = ACTIONS[info.kind];
  return {
    status: "failed",
    recoveryAction: recovery,
    errorAction: action,
    terminalReason: info.retryable ? `gave_up_after_${attempt}_attempts` : `not_retryable_${info.kind}`,
  };
}
