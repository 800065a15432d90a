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
  /**
   * Longest video one post carries, in seconds; null when Herald sends no video to the platform or the platform
   * sets no length. Checked when a publication is created (lib/publishing/video-rules.ts) against the media's
   * duration_ms; a video whose duration is unknown is left to the platform.
   */
  video_max_duration_seconds: number | null;
  /** Largest video file, in bytes; null when Herald sends no video to the platform. Checked at creation. */
  video_max_bytes: number | null;
  /** Largest image file Herald sends, in bytes; null when Herald sends no images or sets no bound (the platform decides). */
  image_max_bytes: number | null;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const PLATFORM_LIMITS: Record<Platform, PlatformLimits> = {
  // lib/platforms/webhook/adapter.ts WEBHOOK_TEXT_LIMIT; the receiver decides what it does with media URLs. Media sizes are
  // Herald's own upload cap (lib/media/limits.ts DEFAULT_MEDIA_MAX_BYTES; GET /accounts/providers shows the configured
  // MEDIA_MAX_BYTES), no duration.
  webhook: {
    text_limit: 10_000,
    text_unit: "characters",
    media_max_count: 10,
    media_kinds: ["image", "video", "audio"],
    threads: false,
    reposts: false,
    analytics: false,
    video_max_duration_seconds: null,
    video_max_bytes: 25 * MiB,
    image_max_bytes: 25 * MiB,
  },
  // app.bsky.feed.post: 300 graphemes, app.bsky.embed.images: 4 images of at most 1,000,000 bytes (the blob's
  // maxSize; lib/platforms/bluesky/media.ts BLUESKY_MAX_IMAGE_BYTES). No video (Bluesky's video service is not used).
  bluesky: {
    text_limit: 300,
    text_unit: "graphemes",
    media_max_count: 4,
    media_kinds: ["image"],
    threads: true,
    reposts: true,
    analytics: true,
    video_max_duration_seconds: null,
    video_max_bytes: null,
    image_max_bytes: 1_000_000,
  },
  // Mastodon default max_characters 500 (a server may announce more), 4 attachments. Media sizes are Mastodon 4's
  // defaults as its /api/v2/instance announces them (configuration.media_attachments image_size_limit 16 MiB,
  // video_size_limit 99 MiB; lib/platforms/mastodon/media.ts reads at most 99 MiB); no duration limit. A server may
  // set its own (Mastodon 3 and GoToSocial default to 40 MiB): Herald does not read them (mastodon-instance.ts reads
  // max_characters only), so such a server refuses the upload at publication.
  mastodon: {
    text_limit: 500,
    text_unit: "characters",
    media_max_count: 4,
    media_kinds: ["image", "video", "audio"],
    threads: true,
    reposts: true,
    analytics: true,
    video_max_duration_seconds: null,
    video_max_bytes: 99 * MiB,
    image_max_bytes: 16 * MiB,
  },
  // X API v2 POST /2/tweets: 280 weighted characters (URLs count 23), 4 images (lib/platforms/x/media.ts: Herald
  // uploads still images, 5 MiB each, X_MAX_IMAGE_BYTES; video needs X's chunked upload). Retweets through x-repost.ts, metrics
  // through lib/platforms/x/analytics.ts.
  x: {
    text_limit: 280,
    text_unit: "weighted_characters",
    media_max_count: 4,
    media_kinds: ["image"],
    threads: true,
    reposts: true,
    analytics: true,
    video_max_duration_seconds: null,
    video_max_bytes: null,
    image_max_bytes: 5 * MiB,
  },
  // LinkedIn Posts API: commentary up to 3,000 characters; one image or a multiImage post of up to 20. No threads:
  // lib/platforms/linkedin/adapter.ts joins a rendition's segments into one post when the whole fits (else 422 at
  // creation). Herald sends images only; reshares through lib/platforms/linkedin/repost.ts; member post statistics
  // are not available (see the catalog). Images: lib/platforms/linkedin/media.ts reads at most 20 MiB.
  linkedin: {
    text_limit: 3_000,
    text_unit: "characters",
    media_max_count: 20,
    media_kinds: ["image"],
    threads: false,
    reposts: true,
    analytics: false,
    video_max_duration_seconds: null,
    video_max_bytes: null,
    image_max_bytes: 20 * MiB,
  },
  // Threads API: 500 characters per post (emoji as their UTF-8 bytes), carousels up to 20 items, replies via
  // reply_to_id. lib/platforms/threads/body.ts: Herald sends images only; reposts through threads-repost.ts; insights
  // through lib/platforms/threads/analytics.ts.
  threads: {
    text_limit: 500,
    text_unit: "characters",
    media_max_count: 20,
    media_kinds: ["image"],
    threads: true,
    reposts: true,
    analytics: true,
    video_max_duration_seconds: null,
    video_max_bytes: null,
    image_max_bytes: null,
  },
  // Graph API Page posts: 63,206 characters (Herald's API takes at most 50,000 per segment); lib/platforms/facebook/adapter.ts
  // joins a rendition's segments into one post, sends images only (one photo, or up to 10 attached to a feed post).
  // Followers and post counts through lib/platforms/facebook/analytics.ts.
  facebook: {
    text_limit: 63_206,
    text_unit: "graphemes",
    media_max_count: 10,
    media_kinds: ["image"],
    threads: false,
    reposts: false,
    analytics: true,
    video_max_duration_seconds: null,
    video_max_bytes: null,
    image_max_bytes: null,
  },
  // Instagram content publishing: caption 2,200 characters (30 hashtags), carousels of up to 10 images, or one
  // video alone as a Reel; media required. lib/platforms/instagram/adapter.ts joins a rendition's segments into one caption.
  // Reels (Content Publishing API video specifications): 3 seconds to 15 minutes, at most 300 MB (the size and the
  // longest duration checked at creation, lib/publishing/media-rules.ts and video-rules.ts; the shortest by Instagram).
  instagram: {
    text_limit: 2_200,
    text_unit: "graphemes",
    media_max_count: 10,
    media_kinds: ["image", "video"],
    threads: false,
    reposts: false,
    // Followers, likes, comments and media insights through lib/platforms/instagram/analytics.ts.
    analytics: true,
    video_max_duration_seconds: 15 * 60,
    video_max_bytes: 300 * MiB,
    image_max_bytes: null,
  },
  // TikTok Content Posting API: caption 2,200 characters, one video (Media Transfer Guide: MP4, WebM or MOV, up to
  // 4 GB; up to 10 minutes, the documented maximum of creator_info's max_video_post_duration_sec). A creator's own
  // maximum may be shorter: the adapter reads creator_info before each post and fails it at once, saying the limit
  // (lib/platforms/tiktok/creator.ts); statistics lib/platforms/tiktok/analytics.ts.
  tiktok: {
    text_limit: 2_200,
    text_unit: "characters",
    media_max_count: 1,
    media_kinds: ["video"],
    threads: false,
    reposts: false,
    analytics: true,
    video_max_duration_seconds: 10 * 60,
    video_max_bytes: 4 * GiB,
    image_max_bytes: null,
  },
  // YouTube Data API videos.insert: description 5,000 characters (title 100), one video (videos.insert: up to 256 GB;
  // YouTube Help: 12 hours for a verified channel, 15 minutes for an unverified one). Herald cannot tell a channel's
  // verification when a publication is created, so it refuses what no channel can take (over 12 hours) and leaves
  // 15 minutes to YouTube, which refuses a longer upload to an unverified channel with its reason; refusing every
  // video over 15 minutes would turn away what most channels accept. lib/platforms/youtube/adapter.ts; statistics
  // lib/platforms/youtube/analytics.ts.
  youtube: {
    text_limit: 5_000,
    text_unit: "characters",
    media_max_count: 1,
    media_kinds: ["video"],
    threads: false,
    reposts: false,
    analytics: true,
    video_max_duration_seconds: 12 * 60 * 60,
    video_max_bytes: 256 * GiB,
    image_max_bytes: null,
  },
  // Discord execute webhook: content 2,000 characters, 10 attachments of at most 10 MiB each (lib/providers/
  // discord-message.ts DISCORD_MAX_FILE_BYTES, Discord's upload limit without boosts); each segment is its own message.
  discord: {
    text_limit: 2_000,
    text_unit: "characters",
    media_max_count: 10,
    media_kinds: ["image", "video", "audio"],
    threads: false,
    reposts: false,
    analytics: false,
    video_max_duration_seconds: null,
    video_max_bytes: 10 * MiB,
    image_max_bytes: 10 * MiB,
  },
};
