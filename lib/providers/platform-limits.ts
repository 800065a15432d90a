import type { Platform } from "../../db/schema/accounts";

/**
 * What one post of each platform can carry, as the platform documents it (CONTRACT §9: GET /accounts/providers
 * lists these). Pure data. An adapter's own textLimit/measure decides at publication time; these figures are
 * the platform's published defaults and must agree with the adapter once one exists. A platform whose adapter
 * is not built yet is still described here, so the provider list can say what connecting it will give.
 */
export interface PlatformLimits {
  /** Characters (or graphemes, see text_unit) of one post's text. */
  text_limit: number;
  text_unit: "characters" | "graphemes" | "weighted_characters";
  /** Attachments one post carries. */
  media_max_count: number;
  media_kinds: ("image" | "video" | "audio")[];
  /** Whether a publication's segments become a reply chain (a thread) on the platform. */
  threads: boolean;
  /** Whether the platform's API lets Herald repost (retweet, reblog, reshare). */
  reposts: boolean;
  /** Whether the platform's API gives per-post metrics Herald can collect. */
  analytics: boolean;
}

export const PLATFORM_LIMITS: Record<Platform, PlatformLimits> = {
  // lib/providers/webhook.ts WEBHOOK_TEXT_LIMIT; the receiver decides what it does with media URLs.
  webhook: {
    text_limit: 10_000,
    text_unit: "characters",
    media_max_count: 10,
    media_kinds: ["image", "video", "audio"],
    threads: false,
    reposts: false,
    analytics: false,
  },
  // app.bsky.feed.post: 300 graphemes, app.bsky.embed.images: 4 images.
  bluesky: { text_limit: 300, text_unit: "graphemes", media_max_count: 4, media_kinds: ["image"], threads: true, reposts: true, analytics: true },
  // Mastodon default max_characters 500 (a server may announce more), 4 attachments.
  mastodon: {
    text_limit: 500,
    text_unit: "characters",
    media_max_count: 4,
    media_kinds: ["image", "video", "audio"],
    threads: true,
    reposts: true,
    analytics: true,
  },
  // X API v2 POST /2/tweets: 280 weighted characters (URLs count 23), 4 images (lib/providers/x-media.ts: Herald
  // uploads still images only; video needs X's chunked upload). Retweets through lib/providers/x-repost.ts, metrics
  // through lib/analytics/collect-x.ts.
  x: { text_limit: 280, text_unit: "weighted_characters", media_max_count: 4, media_kinds: ["image"], threads: true, reposts: true, analytics: true },
  // LinkedIn Posts API: commentary up to 3,000 characters; one image or a multiImage post of up to 20. No threads:
  // lib/providers/linkedin.ts joins a rendition's segments into one post when the whole fits (else 422 at
  // creation). Herald sends images only; reshares through lib/providers/linkedin-repost.ts; member post statistics
  // are not available (see the catalog).
  linkedin: {
    text_limit: 3_000,
    text_unit: "characters",
    media_max_count: 20,
    media_kinds: ["image"],
    threads: false,
    reposts: true,
    analytics: false,
  },
  // Threads API: 500 characters per post (emoji as their UTF-8 bytes), carousels up to 20 items, replies via
  // reply_to_id. lib/providers/threads-body.ts: Herald sends images only; reposts through threads-repost.ts; insights
  // through lib/analytics/collect-threads.ts.
  threads: { text_limit: 500, text_unit: "characters", media_max_count: 20, media_kinds: ["image"], threads: true, reposts: true, analytics: true },
  // Graph API Page posts: 63,206 characters (Herald's API takes at most 50,000 per segment); lib/providers/facebook.ts
  // joins a rendition's segments into one post, sends images only (one photo, or up to 10 attached to a feed post).
  facebook: {
    text_limit: 63_206,
    text_unit: "graphemes",
    media_max_count: 10,
    media_kinds: ["image"],
    threads: false,
    reposts: false,
    analytics: false,
  },
  // Instagram content publishing: caption 2,200 characters (30 hashtags), carousels of up to 10 items, an image
  // required. lib/providers/instagram.ts joins a rendition's segments into one caption and sends images only.
  instagram: {
    text_limit: 2_200,
    text_unit: "graphemes",
    media_max_count: 10,
    media_kinds: ["image"],
    threads: false,
    reposts: false,
    analytics: false,
  },
  // TikTok Content Posting API: caption 2,200 characters, one video (MP4, WebM or MOV, up to 4 GB; up to 10 minutes
  // as the creator's account allows). lib/providers/tiktok.ts; video statistics not collected yet.
  tiktok: { text_limit: 2_200, text_unit: "characters", media_max_count: 1, media_kinds: ["video"], threads: false, reposts: false, analytics: false },
  // YouTube Data API videos.insert: description 5,000 characters (title 100), one video (up to 256 GB or 12 hours;
  // 15 minutes for an unverified channel). lib/providers/youtube.ts; statistics not collected yet.
  youtube: { text_limit: 5_000, text_unit: "characters", media_max_count: 1, media_kinds: ["video"], threads: false, reposts: false, analytics: false },
  // Discord execute webhook: content 2,000 characters, 10 attachments; each segment is its own message.
  discord: {
    text_limit: 2_000,
    text_unit: "characters",
    media_max_count: 10,
    media_kinds: ["image", "video", "audio"],
    threads: false,
    reposts: false,
    analytics: false,
  },
};
