import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IntegerMap, knownValue, OptionalTimestamp, orNull, Timestamp } from "../../lib/schemas/common";
import { AnalyticsAccount, ContentItem, ContentReference, ContentSource, Coverage, SeriesPoint } from "./content";

/** SPEC.md 2.7 Insight: one observation drawn from the measurements. */
export const Insight = z
  .object({
    kind: knownValue("most_engagement_actions", "What the insight is about"),
    status: knownValue("available", "Whether the insight could be computed"),
    reason: knownValue("missing_measurements", "Why the insight is unavailable").nullable(),
    caveat: knownValue("filtered_content_lifetime_totals", "What to keep in mind reading the value").nullable(),
    metric: z.string(),
    value: z.number().nullable(),
    account_id: z.string().nullable(),
    platform: z.string().nullable(),
    username: z.string().nullable(),
    comparison_sample: z.number().int(),
    destination_count: z.number().int(),
    measured_count: z.number().int(),
    content: orNull(
      z
        .object({
          account_id: z.string(),
          platform: z.string(),
          username: z.string().nullable(),
          title: z.string().nullable(),
          excerpt: z.string().nullable(),
          source: ContentSource,
          reference: ContentReference,
          collected_at: OptionalTimestamp,
          published_at: OptionalTimestamp,
        })
        .openapi("InsightContent"),
    ),
    period: z
      .object({
        aggregation: knownValue("unavailable", "How the period was aggregated"),
        filter_start: OptionalTimestamp,
        filter_end: OptionalTimestamp,
        measurement_start: OptionalTimestamp,
        measurement_end: OptionalTimestamp,
      })
      .openapi("InsightPeriod"),
  })
  .openapi("Insight");

/** SPEC.md 2.7 PublicationAnalytics: a publication's renditions' measurements together. */
export const PublicationAnalytics = z
  .object({
    publication_id: z.string(),
    title: z.string().nullable(),
    excerpt: z.string().nullable(),
    engagement: z.number().int(),
    engagement_measured: z.number().int(),
    measured: IntegerMap.openapi({ description: "Per metric, how many renditions were measured" }),
    metrics: IntegerMap,
    renditions: z.array(ContentItem),
    published_at: OptionalTimestamp,
    last_synced_at: OptionalTimestamp,
  })
  .openapi("PublicationAnalytics");

const SummaryMetric = z.object({ value: z.number().int(), delta: z.number().int(), measured: z.number().int() }).openapi("SummaryMetric");

export const AnalyticsSummary = z
  .object({
    engagement: SummaryMetric,
    followers: SummaryMetric,
    impressions: SummaryMetric,
    reach: SummaryMetric,
    views: SummaryMetric,
    follower_scope: knownValue("account_wide", "What the follower figures cover"),
    published: z.number().int(),
  })
  .openapi("AnalyticsSummary");

const TrendPoint = z
  .object({
    date: z.string(),
    value: z.number().int(),
    items: z.array(
      z
        .object({ key: z.string(), label: z.string(), platform: z.string(), publication_id: z.string().nullable(), value: z.number().int() })
        .openapi("TrendItem"),
    ),
  })
  .openapi("TrendPoint");

export const AnalyticsTrends = z
  .object({ engagement: z.array(TrendPoint), followers: z.array(TrendPoint), views: z.array(TrendPoint) })
  .openapi("AnalyticsTrends");

/** SPEC.md 2.7: the analytics source filter. */
export const AnalyticsSourceFilter = z.enum(["all", "native", "external"]);

/** SPEC.md 2.7 Overview. */
export const Overview = responseObject("Overview", {
  generated_at: Timestamp,
  last_synced_at: OptionalTimestamp,
  range_days: z.number().int(),
  source: AnalyticsSourceFilter,
  account_growth_scope: knownValue("account_wide", "What account growth covers"),
  summary: AnalyticsSummary,
  trends: AnalyticsTrends,
  accounts: z.array(AnalyticsAccount),
  follower_series: z.array(SeriesPoint),
  coverage: z.array(Coverage),
  insights: z.array(Insight),
  content: z.array(ContentItem),
  content_total: z.number().int(),
  content_next_cursor: z.string().nullable(),
  publications: z.array(PublicationAnalytics),
  publication_total: z.number().int(),
  publication_next_cursor: z.string().nullable(),
});
