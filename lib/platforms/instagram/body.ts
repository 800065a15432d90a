import { ProviderError, type MediaRef } from "../../providers/types";

/**
 * What one Instagram post can be, and the media containers it needs (POST /{ig-user-id}/media), as form
 * parameters. Pure. Instagram's content publishing: a caption of at most 2,200 characters with at most 30
 * hashtags; media are required (a text-only post does not exist there); one image is an image container
 * (`image_url`, fetched by Instagram from Herald's signed media URL, and `alt_text`); two to ten are carousel
 * items (`is_carousel_item`) named as `children` of a CAROUSEL container, which carries the caption; one video
 * alone is a Reel (`media_type=REELS`, `video_url` fetched the same way; feed videos are Reels since 2023).
 * Herald does not mix videos into carousels.
 */

export const INSTAGRAM_CAPTION_LIMIT = 2_200;
export const INSTAGRAM_MAX_HASHTAGS = 30;
export const INSTAGRAM_MAX_IMAGES = 10;
/**
 * Reels specifications (Content Publishing reference): MP4 or MOV, at most 300 MB (checked at creation through
 * lib/providers/platform-limits.ts video_max_bytes, which must agree); Instagram checks the length itself too.
 */
export const INSTAGRAM_REEL_TYPES = ["video/mp4", "video/quicktime"];
export const INSTAGRAM_REEL_MAX_BYTES = 300 * 1024 * 1024;

const isVideo = (m: Pick<MediaRef, "mime_type">) => m.mime_type.startsWith("video/");

export const hashtagCount = (text: string) => (text.match(/#[\p{L}\p{N}_]+/gu) ?? []).length;

/** Why Instagram cannot take this post, or null. Shared by creation-time checks and the adapter. */
export function instagramProblem(caption: string, media: Pick<MediaRef, "mime_type">[]): { code: string; message: string } | null {
  if ([...caption].length > INSTAGRAM_CAPTION_LIMIT)
    return { code: "text_too_long", message: `An Instagram caption is at most ${INSTAGRAM_CAPTION_LIMIT} characters` };
  if (hashtagCount(caption) > INSTAGRAM_MAX_HASHTAGS)
    return { code: "too_many_hashtags", message: `An Instagram caption carries at most ${INSTAGRAM_MAX_HASHTAGS} hashtags` };
  if (media.length === 0) return { code: "media_required", message: "An Instagram post needs an image or a video: attach one (media_ids)" };
  if (media.some(isVideo)) {
    if (media.length > 1) return { code: "media_mixed", message: "An Instagram Reel is one video alone; Herald does not mix videos with other media" };
    if (!INSTAGRAM_REEL_TYPES.includes(media[0].mime_type))
      return { code: "media_unsupported", message: `Instagram Reels are MP4 or MOV videos; this one is ${media[0].mime_type}` };
    return null;
  }
  const other = media.find((m) => !m.mime_type.startsWith("image/"));
  if (other) return { code: "media_unsupported", message: `Instagram posts from Herald carry images or one video; this item is ${other.mime_type}` };
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
  /** A Reel: one container whose video Instagram processes, polled across attempts and kept in upload_checkpoints. */
  reel: boolean;
}

export function instagramPlan(caption: string, media: MediaRef[]): InstagramPlan {
  checkInstagram(caption, media);
  const text: Record<string, string> = caption ? { caption } : {};
  if (media.length === 1 && isVideo(media[0])) return { items: [], main: { media_type: "REELS", video_url: media[0].url, ...text }, reel: true };
  if (media.length === 1) return { items: [], main: withAlt({ image_url: media[0].url, ...text }, media[0].alt_text), reel: false };
  return {
    items: media.map((m) => withAlt({ image_url: m.url, is_carousel_item: "true" }, m.alt_text)),
    main: { media_type: "CAROUSEL", ...text },
    reel: false,
  };
}
