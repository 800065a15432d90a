import type { Platform } from "../../db/schema/accounts";
import { LINKEDIN_JOINER } from "../providers/linkedin-text";
import { PLATFORM_LIMITS } from "../providers/platform-limits";
import { adapterFor, hasAdapter } from "../providers/registry";
import { graphemeLength } from "../text/graphemes";
import type { Measure } from "./segment";

export interface SegmentLimit {
  limit: number;
  measure: Measure;
  /**
   * Set for a platform without threads that posts a rendition's segments joined into one post (LinkedIn):
   * the joiner, so the whole rendition, not each segment, must fit `limit`.
   */
  joinedWith?: string;
}

/**
 * How long one segment may be for an account, counted as its platform counts (the adapter knows). A platform
 * whose adapter is not built yet has its documented limit in graphemes: nothing can be published there anyway.
 */
export function segmentLimit(platform: Platform, announced?: number | null): SegmentLimit {
  if (!hasAdapter(platform)) return { limit: PLATFORM_LIMITS[platform].text_limit, measure: graphemeLength };
  const adapter = adapterFor(platform);
  const limit = { limit: adapter.textLimit({ instanceUrl: null }, announced), measure: adapter.measure };
  return platform === "linkedin" ? { ...limit, joinedWith: LINKEDIN_JOINER } : limit;
}
