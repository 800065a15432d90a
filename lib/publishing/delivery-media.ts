import type { Queryable } from "../db/client";
import { publicBaseUrl, type Env } from "../env";
import { PLATFORM_MEDIA_URL_TTL_SECONDS, signedMediaUrl, WEBHOOK_MEDIA_URL_TTL_SECONDS } from "../media/signed-url";
import { ProviderError, type MediaRef } from "../providers/types";
import { loadMedia } from "./media";

/**
 * A publication's media as a platform or webhook receiver fetches them: signed URLs under
 * PUBLIC_BASE_URL (no token needed), in attachment order, valid for minutes (a day for a webhook receiver,
 * which may fetch later). An item trashed or purged since it was
 * attached fails the delivery with a message saying what to do, rather than going out silently without it.
 */
export async function deliveryMedia(q: Queryable, env: Env, mediaIds: string[], forWebhook: boolean): Promise<MediaRef[]> {
  if (mediaIds.length === 0) return [];
  const rows = await loadMedia(q, mediaIds);
  const base = publicBaseUrl(env);
  const ttl = forWebhook ? WEBHOOK_MEDIA_URL_TTL_SECONDS : PLATFORM_MEDIA_URL_TTL_SECONDS;
  const refs: MediaRef[] = [];
  for (const id of mediaIds) {
    const m = rows.get(id);
    if (!m || m.trashedAt) {
      const where = m ? "is in the trash" : "is no longer in the media library";
      throw new ProviderError(`Attached media item ${id} ${where}: restore it, or remove it from the publication, then publish again.`, {
        kind: "validation",
        code: m ? "media_trashed" : "media_missing",
        retryable: false,
      });
    }
    refs.push({ id, url: await signedMediaUrl(env, base, id, ttl), mime_type: m.mimeType, alt_text: m.altText, duration_ms: m.durationMs });
  }
  return refs;
}
