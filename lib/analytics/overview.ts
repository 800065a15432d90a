import { isPlatform } from "../../db/schema/accounts";
import { PLATFORM_LIMITS } from "../providers/platform-limits";
import { ENGAGEMENT_METRICS } from "./metrics";
import type { AccountRow, ContentRow, FollowerDay, PeriodTotals, ReadingRow, TrendRow } from "./overview-queries";
import { dayList, fillSeries, seriesDelta, sumSeries } from "./series";

/**
 * Turns the overview's query rows into SPEC 2.7 shapes. No HTTP, no database: everything it needs is
 * passed in, so it is tested directly.
 */

/** Data older than this is flagged `stale`. */
export const STALE_AFTER_MS = 24 * 3_600_000;

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const isStale = (lastMs: number | null | undefined, nowMs: number) => lastMs === null || lastMs === undefined || nowMs - lastMs > STALE_AFTER_MS;

/** What each platform offers analytics, as its limits say (GET /accounts/providers); the collectors ask only for these. */
export function platformSupport(platform: string): { account: boolean; content: boolean } {
  const collected = isPlatform(platform) && PLATFORM_LIMITS[platform].analytics;
  return { account: collected, content: collected };
}

export function metricMetadata(r: ReadingRow) {
  return {
    aggregation: r.aggregation,
    period_start: iso(r.period_start_ms),
    period_end: iso(r.period_end_ms),
    scale: r.scale,
    source: r.source,
    unit: r.unit,
  };
}

/** A reading as SPEC's measurement entry (`reason` says why an unavailable metric could not be measured). */
export function measurementOf(r: ReadingRow) {
  return {
    availability: r.availability,
    collected_at: iso(r.collected_ms),
    metadata: metricMetadata(r),
    value: r.value === null ? null : Number(r.value),
    reason: r.unavailable_reason,
  };
}

export interface AccountInfo {
  id: string;
  platform: string;
  username: string | null;
  nextSyncMs: number | null;
}

export function accountInfo(rows: AccountRow[]): Map<string, AccountInfo> {
  return new Map(
    rows.map((r) => [
      r.account.id,
      { id: r.account.id, platform: r.account.platform, username: r.account.username, nextSyncMs: r.coverage?.nextEligibleAt?.getTime() ?? null },
    ]),
  );
}

/** A content item with its latest readings (SPEC 2.7 ContentItem). */
export function contentItem(row: ContentRow, account: AccountInfo | undefined, readings: ReadingRow[], nowMs: number) {
  const measurements = Object.fromEntries(readings.map((r) => [r.metric, measurementOf(r)]));
  const available = readings.filter((r) => r.availability === "available").length;
  const metrics = Object.fromEntries(Object.entries(row.latest_metrics ?? {}).map(([k, v]) => [k, Number(v)]));
  return {
    account_id: row.account_id,
    username: account?.username ?? null,
    platform: account?.platform ?? "unknown",
    publication_id: row.publication_id,
    rendition_id: row.rendition_id,
    content_profile: row.content_profile,
    title: row.title,
    excerpt: row.excerpt,
    external_url: row.external_url,
    status: row.rendition_status ?? "published",
    error_code: row.rendition_error_code,
    error_message: row.rendition_error_message,
    source: row.source,
    reference: { account_content_id: row.external_id, type: "external" },
    engagement: Number(row.engagement),
    metrics,
    metric_availability: readings.length === 0 ? "unavailable" : available === readings.length ? "available" : available === 0 ? "unavailable" : "partial",
    metric_metadata: Object.fromEntries(readings.map((r) => [r.metric, metricMetadata(r)])),
    measurements,
    stale: isStale(row.last_synced_ms, nowMs),
    published_at: iso(row.published_ms)!,
    collected_at: iso(row.collected_ms),
    last_synced_at: iso(row.last_synced_ms),
    next_sync_at: row.source === "native" ? iso(account?.nextSyncMs) : null,
  };
}
export type ContentItemOut = ReturnType<typeof contentItem>;

const summaryMetric = (current: number, previous: number, measured: number) => ({ value: current, delta: current - previous, measured });

/** `summary`: content totals against the previous period of the same length, followers account-wide. */
export function summary(current: PeriodTotals, previous: PeriodTotals, followers: { value: number; delta: number; measured: number }) {
  return {
    engagement: summaryMetric(current.engagement, previous.engagement, current.engagement_measured),
    views: summaryMetric(current.views, previous.views, current.views_measured),
    impressions: summaryMetric(current.impressions, previous.impressions, current.impressions_measured),
    reach: summaryMetric(current.reach, previous.reach, current.reach_measured),
    followers,
    follower_scope: "account_wide",
    published: current.published,
  };
}

export interface AccountGrowth {
  accountId: string;
  series: { date: string; value: number }[];
  delta: number | null;
}

/** Each account's follower series over the range and the delta from its baseline. */
export function followerGrowth(
  accountIds: string[],
  days: FollowerDay[],
  baselines: { account_id: string; value: number }[],
  now: Date,
  rangeDays: number,
): AccountGrowth[] {
  const list = dayList(now, rangeDays);
  const base = new Map(baselines.map((b) => [b.account_id, Number(b.value)]));
  return accountIds.map((accountId) => {
    const points = new Map(days.filter((d) => d.account_id === accountId).map((d) => [d.day, Number(d.value)]));
    const series = fillSeries(list, points, base.get(accountId));
    return { accountId, series, delta: seriesDelta(series, base.get(accountId)) };
  });
}

/** Follower summary: latest total, change over the range, accounts measured. */
export function followerSummary(growth: AccountGrowth[]) {
  const measured = growth.filter((g) => g.series.length > 0);
  return {
    value: measured.reduce((n, g) => n + g.series[g.series.length - 1].value, 0),
    delta: measured.reduce((n, g) => n + (g.delta ?? 0), 0),
    measured: measured.length,
  };
}

/** `trends`: engagement and views by publication day (every day of the range), followers by day. */
export function trends(trendDays: TrendRow[], growth: AccountGrowth[], accounts: Map<string, AccountInfo>, now: Date, rangeDays: number) {
  const list = dayList(now, rangeDays);
  const byDay = new Map(trendDays.map((t) => [t.day, t]));
  const label = (t: { title: string | null; excerpt: string | null; external_id: string }) => t.title ?? t.excerpt?.slice(0, 80) ?? t.external_id;
  const contentTrend = (metric: "engagement" | "views") =>
    list.map((date) => {
      const t = byDay.get(date);
      const top = (t?.top ?? [])
        .filter((x) => (metric === "engagement" ? x.re <= 3 : x.rv <= 3 && x.views !== null))
        .sort((a, b) => (metric === "engagement" ? a.re - b.re : a.rv - b.rv));
      return {
        date,
        value: t ? Number(t[metric]) : 0,
        items: top.map((x) => ({
          key: x.id,
          label: label(x),
          platform: accounts.get(x.account_id)?.platform ?? "unknown",
          publication_id: x.publication_id,
          value: Number(x[metric] ?? 0),
        })),
      };
    });
  const followerTotals = sumSeries(
    growth.map((g) => g.series),
    list,
  );
  const followers = followerTotals.map(({ date, value }) => ({
    date,
    value,
    items: growth.flatMap((g) => {
      const p = g.series.find((s) => s.date === date);
      const a = accounts.get(g.accountId);
      return p ? [{ key: g.accountId, label: a?.username ?? g.accountId, platform: a?.platform ?? "unknown", publication_id: null, value: p.value }] : [];
    }),
  }));
  return { engagement: contentTrend("engagement"), views: contentTrend("views"), followers };
}

/** `accounts`: each account's growth, latest account metrics, staleness and failures. */
export function analyticsAccount(row: AccountRow, growth: AccountGrowth | undefined, readings: ReadingRow[], nowMs: number) {
  const { account, coverage } = row;
  const support = platformSupport(account.platform);
  const lastSuccess = coverage?.lastSuccessAt?.getTime() ?? null;
  return {
    id: account.id,
    platform: account.platform,
    username: account.username,
    avatar_url: account.avatarUrl,
    status: !support.account ? "unsupported" : coverage?.failureCode ? "error" : lastSuccess === null ? "pending" : "ok",
    account_supported: support.account,
    content_supported: support.content,
    stale: support.account ? isStale(lastSuccess, nowMs) : false,
    error_code: coverage?.failureCode ?? null,
    error_message: coverage?.failureMessage ?? null,
    follower_delta: growth?.delta ?? null,
    follower_series: growth?.series ?? [],
    metrics: Object.fromEntries(readings.filter((r) => r.value !== null).map((r) => [r.metric, Number(r.value)])),
    metric_metadata: Object.fromEntries(readings.map((r) => [r.metric, metricMetadata(r)])),
    // The Mastodon scopes collection reads with (the only provider with scoped tokens here).
    missing_account_scopes: coverage?.failureCode === "missing_scope" && account.platform === "mastodon" ? ["read:accounts"] : [],
    missing_content_scopes: coverage?.failureCode === "missing_scope" && account.platform === "mastodon" ? ["read:statuses"] : [],
    last_synced_at: iso(lastSuccess),
    next_sync_at: support.account ? iso(coverage?.nextEligibleAt?.getTime()) : null,
  };
}

/** `coverage` of one account. */
export function coverageOf(row: AccountRow) {
  const { account, coverage } = row;
  const supported = platformSupport(account.platform).content;
  return {
    account_id: account.id,
    platform: account.platform,
    status: !supported ? "unsupported" : (coverage?.status ?? "pending"),
    description: !supported ? `${account.platform} accounts offer no analytics to collect` : (coverage?.description ?? (coverage ? null : "Not collected yet")),
    failure_code: coverage?.failureCode ?? null,
    failure_message: coverage?.failureMessage ?? null,
    initial_items_discovered: coverage?.initialItemsDiscovered ?? 0,
    backfill_watermark: iso(coverage?.backfillWatermark?.getTime()),
    initial_completed_at: iso(coverage?.initialCompletedAt?.getTime()),
    last_attempted_at: iso(coverage?.lastAttemptedAt?.getTime()),
    last_success_at: iso(coverage?.lastSuccessAt?.getTime()),
    next_eligible_at: supported ? iso(coverage?.nextEligibleAt?.getTime()) : null,
  };
}

/** `publications`: a publication's renditions' measurements together. */
export function publicationAnalytics(pub: { publication_id: string; title: string | null; source_text: string | null }, renditions: ContentItemOut[]) {
  const metrics: Record<string, number> = {};
  const measured: Record<string, number> = {};
  for (const r of renditions) {
    for (const [k, v] of Object.entries(r.metrics)) {
      metrics[k] = (metrics[k] ?? 0) + v;
      measured[k] = (measured[k] ?? 0) + 1;
    }
  }
  const engagementMeasured = renditions.filter((r) => ENGAGEMENT_METRICS.some((k) => k in r.metrics)).length;
  const published = renditions.map((r) => r.published_at).sort();
  const synced = renditions
    .map((r) => r.last_synced_at)
    .filter((x): x is string => x !== null)
    .sort();
  return {
    publication_id: pub.publication_id,
    title: pub.title,
    excerpt: pub.source_text,
    engagement: renditions.reduce((n, r) => n + r.engagement, 0),
    engagement_measured: engagementMeasured,
    measured,
    metrics,
    renditions,
    published_at: published[0] ?? null,
    last_synced_at: synced.at(-1) ?? null,
  };
}

/** `insights`: the content with most engagement actions in the range, against how many items were measured. */
export function mostEngagementInsight(top: ContentItemOut | undefined, current: PeriodTotals, filter: { fromMs: number; toMs: number }) {
  const period = {
    aggregation: top ? "lifetime_total" : "unavailable",
    filter_start: iso(filter.fromMs),
    filter_end: iso(filter.toMs),
    measurement_start: iso(current.first_collected_ms),
    measurement_end: iso(current.last_collected_ms),
  };
  return {
    kind: "most_engagement_actions",
    status: top ? "available" : "unavailable",
    reason: top ? null : "missing_measurements",
    // Values are each item's lifetime totals at its last measurement, for content published in the range.
    caveat: "filtered_content_lifetime_totals",
    metric: "engagement",
    value: top ? top.engagement : null,
    account_id: top?.account_id ?? null,
    platform: top?.platform ?? null,
    username: top?.username ?? null,
    comparison_sample: current.engagement_measured,
    destination_count: current.accounts,
    measured_count: current.engagement_measured,
    content: top
      ? {
          account_id: top.account_id,
          platform: top.platform,
          username: top.username,
          title: top.title,
          excerpt: top.excerpt,
          source: top.source,
          reference: top.reference,
          collected_at: top.collected_at,
          published_at: top.published_at,
        }
      : null,
    period,
  };
}
