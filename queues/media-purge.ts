import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { logEvent } from "../lib/log";
import { drainRefusal } from "../lib/jobs/drain-auth";
import { purgeMedia, type PurgeReport } from "../lib/media/purge";

/**
 * Purges the media library on a schedule: trash past its purge_after and temporary uploads past their
 * expiry, with their stored bytes (lib/media/purge.ts). Items still in use are left and logged.
 * Needs the MEDIA_BUCKET binding as well as the database.
 */
async function run(env: Env): Promise<PurgeReport | { error: string }> {
  if (!env.MEDIA_BUCKET) return { error: "MEDIA_BUCKET is not bound; nothing was purged" };
  const { db, close } = openDb(env);
  try {
    return await purgeMedia(db, env.MEDIA_BUCKET);
  } finally {
    await close();
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method === "POST" && new URL(request.url).pathname === "/drain") {
      const refused = await drainRefusal(request, env);
      if (refused) return refused;
      const result = await run(env);
      return Response.json(result, { status: "error" in result ? 503 : 200 });
    }
    return new Response("Not found", { status: 404 });
  },
  async scheduled(_event: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(
      run(env).then((result) => {
        if ("error" in result) logEvent("error", "media purge did not run", { code: "media-bucket-unbound" });
      }),
    );
  },
};
