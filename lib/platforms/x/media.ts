import { fetchMedia } from "../../providers/media";
import { xApi } from "./api";
import { ProviderError, type AccountContext, type MediaRef } from "../../providers/types";

/**
 * Images for a post through X API v2: `POST /2/media/upload` (multipart: `media`, `media_category`
 * tweet_image) answers the media id, then `POST /2/media/metadata` gives it its alt text. A post carries
 * up to 4 images of up to 5 MB; video and GIF need X's chunked upload and processing, which Herald does not
 * do, so they are refused rather than dropped. An upload repeated by a retry only leaves an unused media
 * id, which X expires by itself; it never makes a second post.
 */

export const X_MAX_IMAGES = 4;
export const X_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** X's bound on alt text. */
export const X_MAX_ALT_TEXT = 1000;

export function checkXMedia(media: Pick<MediaRef, "mime_type">[]): void {
  const other = media.find((m) => !m.mime_type.startsWith("image/") || m.mime_type === "image/gif");
  if (other)
    throw new ProviderError(`X posts from Herald carry still images only; ${other.mime_type} is not supported.`, {
      kind: "validation",
      code: "media_unsupported",
      retryable: false,
    });
  if (media.length > X_MAX_IMAGES)
    throw new ProviderError(`An X post carries at most ${X_MAX_IMAGES} images.`, { kind: "validation", code: "too_many_media", retryable: false });
}

export async function uploadXImages(account: AccountContext, media: MediaRef[]): Promise<string[]> {
  checkXMedia(media);
  const ids: string[] = [];
  for (const item of media) {
    const bytes = await fetchMedia(account, item, X_MAX_IMAGE_BYTES);
    const form = new FormData();
    form.append("media", new Blob([bytes], { type: item.mime_type }), "media");
    form.append("media_category", "tweet_image");
    form.append("media_type", item.mime_type);
    const out = await xApi<{ data?: { id?: string } }>(account, "/2/media/upload", { method: "POST", form, timeoutMs: 60_000 });
    const id = out?.data?.id;
    if (typeof id !== "string")
      throw new ProviderError("X answered the media upload without a media id.", { kind: "unknown", code: "malformed_id", retryable: true });
    if (item.alt_text) {
      await xApi(account, "/2/media/metadata", { method: "POST", body: { id, metadata: { alt_text: { text: item.alt_text.slice(0, X_MAX_ALT_TEXT) } } } });
    }
    ids.push(id);
  }
  return ids;
}
