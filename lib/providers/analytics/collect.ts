import type { ProviderError } from "../types";

/** What collectors share: where a run starts, what it found, and how much it may read. */

/** Where a value came from (MetricMetadata.source). */
export type MeasurementSource =
  | "import"
  | "mastodon_api"
  | "bluesky_pds"
  | "bluesky_appview"
  | "x_api"
  | "threads_api"
  | "youtube_api"
  | "facebook_graph"
  | "instagram_graph"
  | "tiktok_api";

/** A value to store, or a metric the provider could not give and why (stored unavailable, never as zero). */
export type MetricReading = { metric: string; value: number } | { metric: string; value: null; reason: string };

export type SourcedReading = MetricReading & { source: MeasurementSource };

/** How a collector records what an answer says: the count, or unavailable with `reason` when it is absent (never zero). */
export const readingFrom =
  (source: MeasurementSource) =>
  (metric: string, v: number | undefined, reason = "not_in_response"): SourcedReading =>
    v === undefined ? { metric, value: null, reason, source } : { metric, value: v, source };

/** Where backfill discovery of an account's older posts stands (from its coverage row). */
export interface BackfillState {
  /** The provider's paging position for the next older page; null: start from the newest. */
  cursor: string | null;
  /** Whether discovery has reached the account's oldest post once. */
  done: boolean;
}

export interface CollectedPost {
  externalId: string;
  publishedAt: Date;
  excerpt: string | null;
  url: string | null;
  readings: SourcedReading[];
}

export interface CollectResult {
  account: SourcedReading[];
  posts: CollectedPost[];
  backfill: BackfillState;
  /** Oldest publication time reached by discovery so far in this run (null: none read). */
  oldestSeen: Date | null;
  reads: number;
  /** A failure after some progress: what was read is kept, the account's coverage records this. */
  error?: ProviderError;
}

/**
 * Calls per provider per run, every read counted (Bluesky's AppView calls for counts too): a large account
 * is covered over several runs rather than in one long one. Bluesky needs a page of 100 posts and four
 * AppView calls for its counts; Mastodon's and X's pages carry their counts; Threads needs one insights read per post
 * (a page of 25 and its insights fit one run); YouTube reads the channel, then two calls a page of 50 videos (the
 * uploads playlist, then the videos' statistics), one quota unit each. Facebook's pages of 50 Page posts carry their
 * counts; Instagram, like Threads, needs one insights read per media (a page of 25 and its insights fit one run).
 * TikTok reads the user's followers, then pages of 20 videos (the most video.list gives) that carry their counts.
 */
export const READ_BUDGET = { mastodon: 6, bluesky: 16, x: 6, threads: 28, youtube: 7, facebook: 6, instagram: 28, tiktok: 6 } as const;

/** How long one read may wait for its answer: a provider that hangs costs a run this much per call at most. */
export const READ_TIMEOUT_MS = 10_000;

/** What a collector may spend on one run. */
export interface CollectLimits {
  budget: number;
  timeoutMs: number;
}

/** Recent posts stay refreshed for the longest overview range. */
export const REFRESH_WINDOW_MS = 90 * 86_400_000;

export const excerptOf = (text: string) => {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > 280 ? `${clean.slice(0, 279)}…` : clean || null;
};
