import { isPlatform, type Platform } from "../../db/schema/accounts";
import { BLUESKY_MAX_IMAGES } from "../platforms/bluesky/media";
import { MASTODON_MAX_MEDIA } from "../platforms/mastodon/media";
import { PLATFORM_LIMITS } from "../providers/platform-limits";
import { segmentLimit } from "../publishing/limits";
import type { Measure } from "../publishing/segment";
import type { OutputProfile } from "./plan-types";

/**
 * The output profiles a destination allows (Build.input.destinations[].allowed_output_profiles), from
 * its platform and the limit its server announced. Every profile is something Herald's adapters can
 * deliver as planned: the text limit is the adapter's, media counts and types are what one post of
 * that platform carries (lib/publishing/media-rules.ts), and a thread has at most MAX_THREAD segments
 * because a longer thread is a different piece of writing, not a longer post.
 */

export const MAX_THREAD = 10;
/** Webhooks carry any number of segments; a plan still keeps to a readable length. */
const WEBHOOK_MAX_SEGMENTS = 20;
const WEBHOOK_MAX_MEDIA = 10;

const IMAGES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const VIDEO = ["video/mp4", "video/quicktime", "video/webm"];
const AUDIO = ["audio/mpeg", "audio/mp4", "audio/ogg", "audio/wav", "audio/flac", "audio/webm"];

export function outputProfiles(platform: Platform, announcedLimit: number | null): OutputProfile[] {
  const { limit } = segmentLimit(platform, announcedLimit);
  switch (platform) {
    case "bluesky":
      return [
        { key: "bluesky.post", allowed_mimes: IMAGES, max_segments: 1, media_max_count: BLUESKY_MAX_IMAGES, text_limit: limit },
        { key: "bluesky.thread", allowed_mimes: IMAGES, max_segments: MAX_THREAD, media_max_count: BLUESKY_MAX_IMAGES, text_limit: limit },
      ];
    case "mastodon":
      return [
        { key: "mastodon.post", allowed_mimes: [...IMAGES, ...VIDEO, ...AUDIO], max_segments: 1, media_max_count: MASTODON_MAX_MEDIA, text_limit: limit },
        {
          key: "mastodon.thread",
          allowed_mimes: [...IMAGES, ...VIDEO, ...AUDIO],
          max_segments: MAX_THREAD,
          media_max_count: MASTODON_MAX_MEDIA,
          text_limit: limit,
        },
      ];
    case "webhook":
      return [
        {
          key: "webhook.document",
          allowed_mimes: [...IMAGES, ...VIDEO, ...AUDIO],
          max_segments: WEBHOOK_MAX_SEGMENTS,
          media_max_count: WEBHOOK_MAX_MEDIA,
          text_limit: limit,
        },
      ];
    default:
      return genericProfiles(platform, limit);
  }
}

const MIMES_OF = { image: IMAGES, video: VIDEO, audio: AUDIO };

/** A platform without profiles of its own yet: one post, and a thread where it has threads, from its documented limits. */
function genericProfiles(platform: Platform, limit: number): OutputProfile[] {
  const facts = PLATFORM_LIMITS[platform];
  const allowed_mimes = facts.media_kinds.flatMap((kind) => MIMES_OF[kind]);
  const post = { key: `${platform}.post`, allowed_mimes, max_segments: 1, media_max_count: facts.media_max_count, text_limit: limit };
  return facts.threads ? [post, { ...post, key: `${platform}.thread`, max_segments: MAX_THREAD }] : [post];
}

/**
 * Plain ASCII (printable, tab, line feed; no carriage return, which pairs with a line feed into one
 * grapheme) without "://" or "@": every measure Herald has counts it as its length. Checked in one pass.
 */
function plainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 64 || c > 126 || (c < 32 && c !== 9 && c !== 10)) return false;
    if (c === 58 && text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47) return false;
  }
  return true;
}

/**
 * How a platform counts text (the adapter's measure); graphemes for a platform Herald does not know.
 * Plain ASCII is counted directly: the same answer as the adapter's measure, without walking
 * Intl.Segmenter over it (that was nearly all of the planner's time).
 */
export function measureFor(platform: string): Measure {
  const exact = segmentLimit(isPlatform(platform) ? platform : "webhook").measure;
  return (text) => (plainAscii(text) ? text.length : exact(text));
}
