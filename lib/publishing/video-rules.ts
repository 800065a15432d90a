import type { Platform } from "../../db/schema/accounts";

/**
 * What TikTok and YouTube take (lib/providers/tiktok.ts, youtube.ts): exactly one video per post, of a kind and
 * size the platform documents. Checked when a publication is saved, so a post that can never go out is a 422 then.
 * Durations are the platforms' too (TikTok: up to 10 minutes as the creator's account allows; YouTube: 12 hours,
 * 15 minutes for an unverified channel) but depend on the account, so the platform decides at upload.
 */

/** The shapes of ./media-rules.ts (which calls this file), restated so the two do not import each other. */
interface MediaFacts {
  mediaType: string;
  mimeType: string;
  size: number;
}
interface MediaProblem {
  index: number | null;
  message: string;
}

export const VIDEO_PLATFORMS = ["tiktok", "youtube"] as const;

const GB = 1024 * 1024 * 1024;

/** TikTok's Media Transfer Guide: MP4 (recommended), WebM or MOV, up to 4 GB. YouTube: any video up to 256 GB. */
export const VIDEO_RULES: Record<(typeof VIDEO_PLATFORMS)[number], { name: string; maxBytes: number; mimeTypes: string[] | null }> = {
  tiktok: { name: "TikTok", maxBytes: 4 * GB, mimeTypes: ["video/mp4", "video/webm", "video/quicktime"] },
  youtube: { name: "YouTube", maxBytes: 256 * GB, mimeTypes: null },
};

export const isVideoPlatform = (p: Platform): p is (typeof VIDEO_PLATFORMS)[number] => (VIDEO_PLATFORMS as readonly string[]).includes(p);

export function videoProblems(platform: (typeof VIDEO_PLATFORMS)[number], media: MediaFacts[]): MediaProblem[] {
  const rule = VIDEO_RULES[platform];
  if (media.length !== 1 || media[0].mediaType !== "video")
    return [
      {
        index: null,
        message: `A ${rule.name} post is exactly one video; ${media.length} item(s) are attached${media.length === 1 ? ` (${media[0].mimeType})` : ""}`,
      },
    ];
  const [m] = media;
  if (rule.mimeTypes && !rule.mimeTypes.includes(m.mimeType))
    return [{ index: 0, message: `${rule.name} takes ${rule.mimeTypes.join(", ")} videos; this one is ${m.mimeType}` }];
  if (m.size > rule.maxBytes)
    return [{ index: 0, message: `${rule.name} takes videos of at most ${rule.maxBytes / GB} GB; this one is ${(m.size / GB).toFixed(1)} GB` }];
  return [];
}
