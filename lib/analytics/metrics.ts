/**
 * The metrics Herald stores and what they mean. Plain data: used by the importer, the collectors and the
 * overview computation alike.
 */

/** Per-post metrics an import may carry (CONTRACT §5) and collectors may store. */
export const CONTENT_METRICS = ["views", "likes", "reposts", "replies", "impressions", "reach"] as const;
export type ContentMetric = (typeof CONTENT_METRICS)[number];

/** Account-level metrics (stored with no content item). */
export const ACCOUNT_METRICS = ["followers"] as const;

/** Engagement actions: engagement is their sum over the metrics that were measured. */
export const ENGAGEMENT_METRICS = ["likes", "reposts", "replies"] as const;
