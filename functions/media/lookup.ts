import type { AppContext } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";

/** The media bucket binding; without it uploads and downloads cannot work (503, nothing changes). */
export function mediaBucket(c: AppContext): R2Bucket {
  const bucket = c.env?.MEDIA_BUCKET;
  if (!bucket) {
    throw new ApiError("service-unavailable", {
      detail: "Media storage is not configured: bind an R2 bucket as MEDIA_BUCKET (wrangler.toml [[r2_buckets]]).",
    });
  }
  return bucket;
}
