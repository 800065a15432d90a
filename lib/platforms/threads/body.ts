import { ProviderError, type MediaRef } from "../../providers/types";

/**
 * The media containers one Threads post needs (POST /{user-id}/threads), as form parameters. Pure.
 * No media: one TEXT container. One image: an IMAGE container with its `image_url` (Threads fetches it, so it
 * must be public: Herald's signed media URL) and `alt_text`. Two to twenty images: one IMAGE container per
 * image with `is_carousel_item`, then a CAROUSEL container naming them as `children`. A reply names its
 * parent with `reply_to_id` on the container that is published.
 */

export const THREADS_MAX_IMAGES = 20;

export interface ContainerPlan {
  /** Carousel items, created first; their ids become the main container's `children`. */
  items: Record<string, string>[];
  main: Record<string, string>;
}

export function checkThreadsMedia(media: Pick<MediaRef, "mime_type">[]): void {
  const other = media.find((m) => !m.mime_type.startsWith("image/"));
  if (other)
    throw new ProviderError(`Threads posts from Herald carry images only; ${other.mime_type} is not supported.`, {
      kind: "validation",
      code: "media_unsupported",
      retryable: false,
    });
  if (media.length > THREADS_MAX_IMAGES)
    throw new ProviderError(`A Threads post carries at most ${THREADS_MAX_IMAGES} images.`, { kind: "validation", code: "too_many_media", retryable: false });
}

const withAlt = (params: Record<string, string>, alt: string | null) => (alt ? { ...params, alt_text: alt } : params);

export function containerPlan(text: string, media: MediaRef[], replyTo: string | null): ContainerPlan {
  checkThreadsMedia(media);
  const common = { ...(text ? { text } : {}), ...(replyTo ? { reply_to_id: replyTo } : {}) };
  if (media.length === 0) return { items: [], main: { media_type: "TEXT", ...common } };
  if (media.length === 1) return { items: [], main: withAlt({ media_type: "IMAGE", image_url: media[0].url, ...common }, media[0].alt_text) };
  return {
    items: media.map((m) => withAlt({ media_type: "IMAGE", image_url: m.url, is_carousel_item: "true" }, m.alt_text)),
    main: { media_type: "CAROUSEL", ...common },
  };
}
