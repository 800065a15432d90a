import { withDatabase } from "../lib/db/client";
import type { Env } from "../lib/env";
import { queueWorker } from "../lib/jobs/queue-worker";
import { logEvent } from "../lib/log";
import { purgeMedia, type PurgeReport } from "../lib/media/purge";

/**
 * Purges the media library on a schedule: trash past its purge_after and temporary uploads past their
 * expiry, with their stored bytes (lib/media/purge.ts). Items still in use are left and logged.
 * Needs the MEDIA_BUCKET binding as well as the database.
 */
async function run(env: Env): Promise<PurgeReport | { error: string }> {
  const bucket = env.MEDIA_BUCKET;
  if (!bucket) return { error: "MEDIA_BUCKET is not bound; nothing was purged" };
  return withDatabase(env, (db) => purgeMedia(db, bucket));
}

export default queueWorker({
  async drain(env) {
    const result = await run(env);
    return { body: result, status: "error" in result ? 503 : 200 };
  },
  scheduled: (env) => [
    run(env).then((result) => {
      if ("error" in result) logEvent("error", "media purge did not run", { code: "media-bucket-unbound" });
    }),
  ],
});
