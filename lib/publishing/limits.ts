import type { Platform } from "../../db/schema/accounts";
import { hashtagCount, INSTAGRAM_MAX_HASHTAGS } from "../platforms/instagram/body";
import { PLATFORM_LIMITS } from "../providers/platform-limits";
import { adapterFor, hasAdapter } from "../platforms/registry";
import { SEGMENT_JOINER } from "../providers/text";
import { graphemeLength } from "../text/graphemes";
import type { Measure } from "./segment";

export interface SegmentLimit {
  limit: number;
  measure: Measure;
  /**
   * Set for a platform without threads that posts a rendition's segments joined into one post (LinkedIn, Facebook, Instagram):
   * the joiner, so the whole rendition, not each segment, must fit `limit`.
   */
  joinedWith?: string;
  /** A rule on the whole post's text beyond its length (Instagram: at most 30 hashtags); the problem, or null. */
  postProblem?: (text: string) => string | null;
}

/**
 * How long one segment may be for an account, counted as its platform counts (the adapter knows). A platform
 * whose adapter is not built yet has its documented limit in graphemes: nothing can be published there anyway.
 */
export function segmentLimit(platform: Platform, announced?: number | null): SegmentLimit {
  if (!hasAdapter(platform)) return { limit: PLATFORM_LIMITS[platform].text_limit, measure: graphemeLength };
  const adapter = adapterFor(platform);
  const limit = { limit: adapter.textLimit({ instanceUrl: null }, announced), measure: adapter.measure };
  if (platform === "instagram") return { ...limit, joinedWith: SEGMENT_JOINER, postProblem: instagramHashtagProblem };
  // Platforms without reply chains whose adapter joins a rendition's segments into one post.
  // TikTok and YouTube: one caption or description per video (lib/providers/video-media.ts joinedText).
  const joins = platform === "linkedin" || platform === "facebook" || platform === "tiktok" || platform === "youtube";
  return joins ? { ...limit, joinedWith: SEGMENT_JOINER } : limit;
}

function instagramHashtagProblem(text: string): string | null {
  const n = hashtagCount(text);
  return n > INSTAGRAM_MAX_HASHTAGS ? `An instagram caption carries at most ${INSTAGRAM_MAX_HASHTAGS} hashtags; this one has ${n}` : null;
}
