import { ProviderError, type MediaRef } from "./types";

/**
 * What one Instagram post can be, and the media containers it needs (POST /{ig-user-id}/media), as form
 * parameters. Pure. Instagram's content publishing: a caption of at most 2,200 characters with at most 30
 * hashtags; an image is required (a text-only post does not exist there); one image is an image container
 * (`image_url`, fetched by Instagram from Herald's signed media URL, and `alt_text`); two to ten are carousel
 * items (`is_carousel_item`) named as `children` of a CAROUSEL container, which carries the caption.
 */

export const INSTAGRAM_CAPTION_LIMIT = 2_200;
export const INSTAGRAM_MAX_HASHTAGS = 30;
export const INSTAGRAM_MAX_IMAGES = 10;

export const hashtagCount = (text: string) => (text.match(/#[\p{L}\p{N}_]+/gu) ?? []).length;

/** Why Instagram cannot take this post, or null. Shared by creation-time checks and the adapter. */
export function instagramProblem(caption: string, media: Pick<MediaRef, "mime_type">[]): { code: string; message: string } | null {
  if ([...caption].length > INSTAGRAM_CAPTION_LIMIT)
    return { code: "text_too_long", message: `An Instagram caption is at most ${INSTAGRAM_CAPTION_LIMIT} characters` };
  if (hashtagCount(caption) > INSTAGRAM_MAX_HASHTAGS)
    return { code: "too_many_hashtags", message: `An Instagram caption carries at most ${INSTAGRAM_MAX_HASHTAGS} hashtags` };
  if (media.length === 0) return { code: "media_required", message: "An Instagram post needs an image: attach one (media_ids)" };
  const other = media.find((m) => !m.mime_type.startsWith("image/"));
  if (other) return { code: "media_unsupported", message: `Instagram posts from Herald carry images only; this item is ${other.mime_type}` };
  if (media.length > INSTAGRAM_MAX_IMAGES) return { code: "too_many_media", message: `An Instagram carousel carries at most ${INSTAGRAM_MAX_IMAGES} images` };
  return null;
}

export function checkInstagram(caption: string, media: MediaRef[]): void {
  const problem = instagramProblem(caption, media);
  if (problem) throw new ProviderError(`${problem.message}.`, { kind: "validation", code: problem.code, retryable: false });
}

const withAlt = (params: Record<string, string>, alt: string | null) => (alt ? { ...params, alt_text: alt } : params);

export interface InstagramPlan {
  /** Carousel items, created first; their ids become the main container's `children`. */
  items: Record<string, string>[];
  main: Record<string, string>;
}

export function instagramPlan(caption: string, media: MediaRef[]): InstagramPlan {
  checkInstagram(caption, media);
  const text: Record<string, string> = caption ? { caption } : {};
  if (media.length === 1) return { items: [], main: withAlt({ image_url: media[0].url, ...text }, media[0].alt_text) };
  return {
    items: media.map((m) => withAlt({ image_url: m.url, is_carousel_item: "true" }, m.alt_text)),
    main: { media_type: "CAROUSEL", ...text },
  };
}
