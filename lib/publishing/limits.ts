import type { Platform } from "../../db/schema/accounts";
import { adapterFor } from "../providers/registry";
import type { Measure } from "./segment";

export interface SegmentLimit {
  limit: number;
  measure: Measure;
}

/** How long one segment may be for an account, counted as its platform counts (the adapter knows). */
export function segmentLimit(platform: Platform, announced?: number | null): SegmentLimit {
  const adapter = adapterFor(platform);
  return { limit: adapter.textLimit({ instanceUrl: null }, announced), measure: adapter.measure };
}
