import { xrpc, type Session } from "./xrpc";
import { fetchMedia } from "../../providers/media";
import { ProviderError, type AccountContext, type MediaRef } from "../../providers/types";

/** The post lexicon's image embed: at most 4 images of at most 1,000,000 bytes each. */
export const BLUESKY_MAX_IMAGES = 4;
export const BLUESKY_MAX_IMAGE_BYTES = 1_000_000;

/**
 * Uploads a segment's images as blobs (com.atproto.repo.uploadBlob) and returns the embed, or null when
 * the segment has none. Blobs are content-addressed, so uploading again on a retry is harmless. Other
 * media kinds (video needs Bluesky's separate video service) are refused rather than silently dropped.
 */
export async function uploadImages(account: AccountContext, s: Session, media: MediaRef[]) {
  if (media.length === 0) return null;
  const other = media.find((m) => !m.mime_type.startsWith("image/"));
  if (other)
    throw new ProviderError(`Bluesky posts from Herald carry images only; ${other.mime_type} is not supported.`, {
      kind: "validation",
      code: "media_unsupported",
      retryable: false,
    });
  if (media.length > BLUESKY_MAX_IMAGES)
    throw new ProviderError(`A Bluesky post carries at most ${BLUESKY_MAX_IMAGES} images.`, { kind: "validation", code: "too_many_media", retryable: false });
  const images = [];
  for (const item of media) {
    const bytes = await fetchMedia(account, item, BLUESKY_MAX_IMAGE_BYTES);
    const out = await xrpc<{ blob: unknown }>(account, s.pdsUrl, "com.atproto.repo.uploadBlob", {
      token: s.accessJwt,
      rawBody: { bytes, type: item.mime_type },
    });
    images.push({ alt: item.alt_text ?? "", image: out.blob });
  }
  return { $type: "app.bsky.embed.images", images };
}
