import { z } from "@hono/zod-openapi";
import { IntegerMap, knownValue, OptionalTimestamp } from "../../lib/schemas/common";

/** SPEC.md 2.7: where a content item's measurements come from. */
export const ContentSource = z.enum(["native", "external"]).openapi({ description: "`native`: collected from the provider; `external`: imported" });

/** SPEC.md 2.7 MetricMetadata: what a metric value means. */
export const MetricMetadata = z
  .object({
    aggregation: knownValue("current_snapshot", "How the value was aggregated"),
    period_start: OptionalTimestamp,
    period_end: OptionalTimestamp,
    scale: z.number(),
    source: z.string(),
    unit: knownValue("count", "Unit of the value"),
  })
  .openapi("MetricMetadata");

export const MetricMetadataMap = z.record(z.string(), MetricMetadata);

export const SeriesPoint = z.object({ date: z.string().openapi({ example: "2026-11-22" }), value: z.number().int() }).openapi("SeriesPoint");

export const ContentReference = z.object({ account_content_id: z.string(), type: knownValue("external", "Kind of reference") }).openapi("ContentReference");

export const Measurement = z
  .object({
    availability: knownValue("available", "Whether the metric could be measured"),
    collected_at: OptionalTimestamp,
    metadata: MetricMetadata,
    value: z.number().int().nullable(),
    reason: z.string().nullable().openapi({ description: "Why an unavailable metric could not be measured (added to SPEC)" }),
  })
  .openapi("Measurement");

/** SPEC.md 2.7 ContentItem: one post's stored measurements. */
export const ContentItem = z
  .object({
    account_id: z.string(),
    username: z.string().nullable(),
    platform: z.string(),
    publication_id: z.string().nullable(),
    rendition_id: z.string().nullable(),
    content_profile: z.string().nullable(),
    title: z.string().nullable(),
    excerpt: z.string().nullable(),
    external_url: z.string().nullable(),
    status: z.string(),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    source: ContentSource,
    reference: ContentReference,
    engagement: z.number().int(),
    metrics: IntegerMap,
    metric_availability: knownValue("available", "Whether this item's metrics could be measured"),
    metric_metadata: MetricMetadataMap,
    measurements: z.record(z.string(), Measurement),
    stale: z.boolean(),
    published_at: OptionalTimestamp,
    collected_at: OptionalTimestamp,
    last_synced_at: OptionalTimestamp,
    next_sync_at: OptionalTimestamp,
  })
  .openapi("ContentItem");

/** SPEC.md 2.7 AnalyticsAccount: one connected account's growth. */
export const AnalyticsAccount = z
  .object({
    id: z.string(),
    platform: z.string(),
    username: z.string().nullable(),
    avatar_url: z.string().nullable(),
    status: z.string(),
    account_supported: z.boolean(),
    content_supported: z.boolean(),
    stale: z.boolean(),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    follower_delta: z.number().int().nullable(),
    follower_series: z.array(SeriesPoint),
    metrics: IntegerMap,
    metric_metadata: MetricMetadataMap,
    missing_account_scopes: z.array(z.string()),
    missing_content_scopes: z.array(z.string()),
    last_synced_at: OptionalTimestamp,
    next_sync_at: OptionalTimestamp,
  })
  .openapi("AnalyticsAccount");

/** SPEC.md 2.7 Coverage: how far collection for an account has got. */
export const Coverage = z
  .object({
    account_id: z.string(),
    platform: z.string(),
    status: knownValue("complete", "Collection coverage state"),
    description: z.string().nullable(),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    initial_items_discovered: z.number().int(),
    backfill_watermark: OptionalTimestamp,
    initial_completed_at: OptionalTimestamp,
    last_attempted_at: OptionalTimestamp,
    last_success_at: OptionalTimestamp,
    next_eligible_at: OptionalTimestamp,
  })
  .openapi("Coverage");
