import type { Platform } from "../../db/schema/accounts";
import { BLUESKY_MAX_IMAGE_BYTES, BLUESKY_MAX_IMAGES } from "../platforms/bluesky/media";
import { instagramProblem } from "../platforms/instagram/body";
import { MASTODON_MAX_MEDIA } from "../platforms/mastodon/media";
import { PLATFORM_LIMITS } from "../providers/platform-limits";
import { isVideoPlatform, videoProblems, withLimitProblems } from "./video-rules";

/**
 * What each platform can carry on one post, as Herald's adapters deliver it (lib/providers/*-media.ts):
 * a publication's media go out on the first post of each rendition, so they must fit one post of every
 * destination. Checked when a publication is saved, so a combination no platform will ever accept is a
 * 422 then rather than a failed delivery later.
 */

export interface MediaFacts {
  mediaType: "image" | "video" | "audio";
  mimeType: string;
  size: number;
  /** The media row's duration_ms; null or absent when unknown (then not refused for its length). */
  durationMs?: number | null;
}

export interface MediaProblem {
  /** Index into the attached media, or null when the problem is the set as a whole (too many). */
  index: number | null;
  message: string;
}

const mb = (bytes: number) => `${Math.round((bytes / 1_000_000) * 10) / 10} MB`;

function blueskyProblems(media: MediaFacts[]): MediaProblem[] {
  const problems: MediaProblem[] = [];
  media.forEach((m, index) => {
    if (m.mediaType !== "image") {
      // The post lexicon's video embed needs Bluesky's separate video service, which Herald does not use.
      problems.push({ index, message: `Bluesky posts from Herald carry images only; this item is ${m.mediaType} (${m.mimeType})` });
    } else if (m.size > BLUESKY_MAX_IMAGE_BYTES) {
      problems.push({ index, message: `Bluesky accepts images of at most ${mb(BLUESKY_MAX_IMAGE_BYTES)}; this one is ${mb(m.size)}` });
    }
  });
  if (media.length > BLUESKY_MAX_IMAGES)
    problems.push({ index: null, message: `A Bluesky post carries at most ${BLUESKY_MAX_IMAGES} images; ${media.length} are attached` });
  return problems;
}

/**
 * Sizes are left to the server (each sets its own; Herald's uploads stay far below Mastodon's defaults).
 * Mastodon refuses a status that mixes a video or audio attachment with anything else.
 */
function mastodonProblems(media: MediaFacts[]): MediaProblem[] {
  if (media.length > MASTODON_MAX_MEDIA)
    return [{ index: null, message: `A Mastodon status carries at most ${MASTODON_MAX_MEDIA} attachments; ${media.length} are attached` }];
  if (media.length > 1 && media.some((m) => m.mediaType !== "image")) {
    return [{ index: null, message: `A Mastodon status carries either up to ${MASTODON_MAX_MEDIA} images or a single video or audio attachment` }];
  }
  return [];
}

/**
 * The problems of one platform with the given media (each message names the platform); none for webhooks. Besides
 * each platform's own rules, every item is held to the platform's documented video length, video size and image
 * size (lib/providers/platform-limits.ts, through ./video-rules.ts limitProblems).
 */
export function mediaProblemsFor(platform: Platform, media: MediaFacts[]): MediaProblem[] {
  return withLimitProblems(platform, media, platformProblems(platform, media));
}

function platformProblems(platform: Platform, media: MediaFacts[]): MediaProblem[] {
  switch (platform) {
    case "bluesky":
      return blueskyProblems(media);
    case "mastodon":
      return mastodonProblems(media);
    case "webhook":
      return [];
    case "instagram":
      return instagramProblems(media);
    default:
      // TikTok and YouTube: exactly one video (./video-rules.ts).
      if (isVideoPlatform(platform)) return videoProblems(platform, media);
      return documentedProblems(platform, media);
  }
}

/**
 * Instagram has no text-only posts: one to ten images (a carousel from two), or one video alone (a Reel, MP4 or
 * MOV); never the two mixed. A Reel's size and length are the limits' rule (300 MB, 15 minutes: ./video-rules.ts).
 */
function instagramProblems(media: MediaFacts[]): MediaProblem[] {
  const problem = instagramProblem(
    "",
    media.map((m) => ({ mime_type: m.mimeType })),
  );
  if (!problem) return [];
  const index = problem.code === "media_unsupported" ? (media.length === 1 ? 0 : media.findIndex((m) => !m.mimeType.startsWith("image/"))) : null;
  return [{ index, message: `instagram: ${problem.message}` }];
}

/** A platform without rules of its own yet: the media kinds and count its documentation gives (lib/providers/platform-limits.ts). */
function documentedProblems(platform: Platform, media: MediaFacts[]): MediaProblem[] {
  const facts = PLATFORM_LIMITS[platform];
  const problems: MediaProblem[] = [];
  media.forEach((m, index) => {
    if (!facts.media_kinds.includes(m.mediaType))
      problems.push({ index, message: `${platform} posts carry ${facts.media_kinds.join(" or ")} only; this item is ${m.mediaType} (${m.mimeType})` });
  });
  if (media.length > facts.media_max_count)
    problems.push({ index: null, message: `A ${platform} post carries at most ${facts.media_max_count} attachments; ${media.length} are attached` });
  return problems;
}

/** Platforms where a post cannot go out without media, so a publication without any is refused for them too. */
export const MEDIA_REQUIRED: readonly Platform[] = ["instagram", "tiktok", "youtube"];

/**
 * Every destination platform's problems with the attached media, as field errors on `media_ids`
 * (`media_ids[i]` for one item, `media_ids` for the set), each naming the platform.
 */
export function mediaProblems(platforms: Platform[], media: MediaFacts[]): { field: string; message: string }[] {
  return [...new Set(platforms)].flatMap((platform) =>
    mediaProblemsFor(platform, media).map((p) => ({
      field: p.index === null ? "media_ids" : `media_ids[${p.index}]`,
      message: p.message,
    })),
  );
}
