import type { Platform } from "../../db/schema/accounts";
import { PLATFORM_LIMITS } from "../providers/platform-limits";
import { adapterFor, hasAdapter } from "../providers/registry";
import { graphemeLength } from "../text/graphemes";
import type { Measure } from "./segment";

export interface SegmentLimit {
  limit: number;
  measure: Measure;
}

/**
 * How long one segment may be for an account, counted as its platform counts (the adapter knows). A platform
 * whose adapter is not built yet has its documented limit in graphemes: nothing can be published there anyway.
 */
export function segmentLimit(platform: Platform, announced?: number | null): SegmentLimit {
  if (!hasAdapter(platform)) return { limit: PLATFORM_LIMITS[platform].text_limit, measure: graphemeLength };
  const adapter = adapterFor(platform);
  return { limit: adapter.textLimit({ instanceUrl: null }, announced), measure: adapter.measure };
}
