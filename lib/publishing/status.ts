import type { PublicationStatus, RenditionStatus } from "../../db/schema/publications";

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

/** `published`, `failed` and `canceled` are terminal: every delivery ends in one of them (CONTRACT §9). */
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
