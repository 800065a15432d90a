import type { LoadedPublication, RenditionRow, RenditionSegmentRow } from "./load";
import type { toPublicationMedia } from "./media";

/** PublicationMedia bodies, as the publication's media are shown on each rendition. */
type MediaBodies = ReturnType<typeof toPublicationMedia>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Rendition.delivery (SPEC 2.5 Delivery) from the rendition's delivery columns. */
export function toDelivery(r: RenditionRow) {
  return {
    state: deliveryState(r),
    target_key: targetKey(r),
    current_attempt_id: r.currentAttemptId,
    current_attempt_number: r.attemptCount || null,
    current_attempt_created_at: iso(r.currentAttemptAt),
    error_code: r.errorCode,
    error_kind: r.errorKind,
    error_http_status: r.errorHttpStatus,
    external_id: r.externalId,
    external_url: r.externalUrl,
    last_reconciled_at: iso(r.lastReconciledAt),
    next_reconciliation_at: r.status === "reconciling" ? iso(r.nextAttemptAt) : null,
    terminal_reason: r.terminalReason,
    recovery_action: r.recoveryAction,
  };
}

/** Delivery.state: where the delivery stands, in the words a dashboard would use. */
function deliveryState(r: RenditionRow): string {
  switch (r.status) {
    case "pending":
      return "not_started";
    case "queued":
      return "queued";
    case "publishing":
      return "in_flight";
    case "retrying":
      return "retry_scheduled";
    case "reconciling":
      return "reconciling";
    case "published":
      return "succeeded";
    case "failed":
      return "failed";
    case "canceled":
      return "canceled";
  }
}

export const targetKey = (r: Pick<RenditionRow, "platform" | "socialAccountId">) => `${r.platform}:${r.socialAccountId}`;

function toRenditionSegment(s: RenditionSegmentRow) {
  return {
    id: s.id,
    publication_segment_id: s.publicationSegmentId,
    position: s.position,
    status: s.status,
    title: s.titleOverride ?? s.title,
    title_override: s.titleOverride,
    body: s.bodyOverride ?? s.body,
    body_override: s.bodyOverride,
    description: null,
    description_override: null,
    url: s.urlOverride ?? s.url,
    url_override: s.urlOverride,
    media: [],
    media_inherited: true,
    settings: {},
    external_id: s.externalId,
    external_url: s.externalUrl,
    error_action: s.errorAction,
    error_code: s.errorCode,
    error_kind: s.errorKind,
    error_message: s.errorMessage,
    error_http_status: s.errorHttpStatus,
    error_retry_at: iso(s.errorRetryAt),
  };
}

/**
 * A publication's media are delivered on the opening post of each rendition (a thread carries them on
 * its first post), so segment 0 shows them and later segments none; `media_inherited` stays true, as
 * no segment has media of its own.
 */
const openingMedia = (position: number, media: MediaBodies) => (position === 0 ? media : []);

export function toRendition(r: RenditionRow, segments: RenditionSegmentRow[], media: MediaBodies) {
  return {
    id: r.id,
    publication_id: r.publicationId,
    social_account_id: r.socialAccountId,
    platform: r.platform,
    target_key: targetKey(r),
    profile: null,
    output_profile: r.platform === "webhook" ? "webhook" : `${r.platform}_thread`,
    status: r.status,
    title: r.title,
    body: r.body,
    description: null,
    schedule_override: null,
    format_locked: r.formatLocked,
    media,
    segments: segments.map((s) => ({ ...toRenditionSegment(s), media: openingMedia(s.position, media) })),
    settings: {},
    delivery: toDelivery(r),
    external_id: r.externalId,
    external_url: r.externalUrl,
    error_retryable: r.errorRetryable,
    error_action: r.errorAction,
    error_code: r.errorCode,
    error_kind: r.errorKind,
    error_message: r.errorMessage,
    error_http_status: r.errorHttpStatus,
    error_retry_at: iso(r.errorRetryAt),
  };
}

/** PublicationResponse (SPEC 2.5) without `$schema`; fields Herald has no value for are null. */
export function toPublicationResponse(loaded: LoadedPublication, media: MediaBodies = []) {
  const p = loaded.publication;
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    revision: p.revision,
    status: p.status,
    title: p.title,
    source_text: p.sourceText,
    source_url: p.sourceUrl,
    intent: null,
    goal: null,
    audience: null,
    content_profile: p.contentProfile,
    creation_preset: null,
    social_set_id: null,
    metadata: p.metadata,
    media,
    segments: loaded.segments.map((s) => ({
      id: s.id,
      position: s.position,
      title: s.title,
      body: s.body,
      description: null,
      url: s.url,
      media: openingMedia(s.position, media),
      settings: {},
    })),
    renditions: loaded.renditions.map(({ rendition, segments }) => toRendition(rendition, segments, media)),
    repost_override: p.repostOverride ?? { mode: "inherit" as const, rule: null, target_account_ids: [] },
    random_delay_inherited: false,
    random_delay_minutes: p.randomDelayMinutes,
    scheduled_at: iso(p.scheduledAt),
    actual_run_at: iso(p.actualRunAt),
    failure_dismissed_at: iso(p.failureDismissedAt),
    created_by: p.createdBy,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
