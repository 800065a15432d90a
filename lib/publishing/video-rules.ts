import type { Platform } from "../../db/schema/accounts";
import { PLATFORM_LIMITS } from "../providers/platform-limits";

/**
 * What TikTok and YouTube take (lib/platforms/tiktok/adapter.ts, youtube.ts): exactly one video per post, of a kind the
 * platform documents; and, for every platform, the video length and file sizes of lib/providers/platform-limits.ts
 * (the figures GET /accounts/providers lists). Checked when a publication is saved, so a post that can never go
 * out is a 422 then rather than a failed delivery later.
 */

/** The shapes of ./media-rules.ts (which calls this file), restated so the two do not import each other. */
interface MediaFacts {
  mediaType: string;
  mimeType: string;
  size: number;
  durationMs?: number | null;
}
interface MediaProblem {
  index: number | null;
  message: string;
}

/** How messages name each platform. */
export const PLATFORM_NAMES: Record<Platform, string> = {
  webhook: "Webhook",
  bluesky: "Bluesky",
  mastodon: "Mastodon",
  x: "X",
  linkedin: "LinkedIn",
  threads: "Threads",
  facebook: "Facebook",
  instagram: "Instagram",
  tiktok: "TikTok",
  youtube: "YouTube",
  discord: "Discord",
};

export const VIDEO_PLATFORMS = ["tiktok", "youtube"] as const;

/** TikTok's Media Transfer Guide: MP4 (recommended), WebM or MOV. YouTube's videos.insert: any video/*. */
export const VIDEO_RULES: Record<(typeof VIDEO_PLATFORMS)[number], { mimeTypes: string[] | null }> = {
  tiktok: { mimeTypes: ["video/mp4", "video/webm", "video/quicktime"] },
  youtube: { mimeTypes: null },
};

export const isVideoPlatform = (p: Platform): p is (typeof VIDEO_PLATFORMS)[number] => (VIDEO_PLATFORMS as readonly string[]).includes(p);

export function videoProblems(platform: (typeof VIDEO_PLATFORMS)[number], media: MediaFacts[]): MediaProblem[] {
  const name = PLATFORM_NAMES[platform];
  if (media.length !== 1 || media[0].mediaType !== "video")
    return [
      {
        index: null,
        message: `A ${name} post is exactly one video; ${media.length} item(s) are attached${media.length === 1 ? ` (${media[0].mimeType})` : ""}`,
      },
    ];
  const [m] = media;
  const { mimeTypes } = VIDEO_RULES[platform];
  if (mimeTypes && !mimeTypes.includes(m.mimeType)) return [{ index: 0, message: `${name} takes ${mimeTypes.join(", ")} videos; this one is ${m.mimeType}` }];
  return [];
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const round1 = (n: number) => Math.round(n * 10) / 10;
/** "4 GiB (4,294,967,296 bytes)": a readable figure, and the exact one it was compared with. */
function bytes(n: number): string {
  const readable = n >= GiB ? `${round1(n / GiB)} GiB` : n >= MiB ? `${round1(n / MiB)} MiB` : `${round1(n / 1000)} kB`;
  return `${readable} (${n.toLocaleString("en-US")} bytes)`;
}
/** "601 seconds (10 min 1 s)": the exact figure compared, and hours, minutes and seconds. */
function seconds(total: number): string {
  const whole = Math.floor(total);
  const [h, min, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), round1((whole % 60) + (total - whole))];
  const readable = [h ? `${h} h` : "", min ? `${min} min` : "", s ? `${s} s` : ""].filter(Boolean).join(" ") || "0 s";
  return `${round1(total).toLocaleString("en-US")} seconds (${readable})`;
}

/**
 * Each item over the platform's documented video length, video size or image size, naming the platform and both
 * figures. Only for kinds the platform takes (a kind it refuses is its own rules' problem). A video whose duration
 * is unknown (duration_ms null: the upload's metadata could not be read) is not refused for its length; the
 * platform decides. Webhooks are left out: what Herald stored already fits its own upload limit, whatever it is now.
 */
export function limitProblems(platform: Platform, media: MediaFacts[]): MediaProblem[] {
  if (platform === "webhook") return [];
  const limits = PLATFORM_LIMITS[platform];
  const name = PLATFORM_NAMES[platform];
  const problems: MediaProblem[] = [];
  media.forEach((m, index) => {
    if (!(limits.media_kinds as readonly string[]).includes(m.mediaType)) return;
    if (m.mediaType === "video") {
      const maxBytes = limits.video_max_bytes;
      if (maxBytes !== null && m.size > maxBytes)
        problems.push({ index, message: `${name} takes videos of at most ${bytes(maxBytes)}; this one is ${bytes(m.size)}` });
      const maxSeconds = limits.video_max_duration_seconds;
      if (maxSeconds !== null && m.durationMs != null && m.durationMs > maxSeconds * 1000)
        problems.push({ index, message: `${name} takes videos of at most ${seconds(maxSeconds)}; this one is ${seconds(m.durationMs / 1000)}` });
    } else if (m.mediaType === "image" && limits.image_max_bytes !== null && m.size > limits.image_max_bytes) {
      problems.push({ index, message: `${name} takes images of at most ${bytes(limits.image_max_bytes)}; this one is ${bytes(m.size)}` });
    }
  });
  return problems;
}

/** A platform's own problems, then the limits' problems of the items those did not already name (one message per item and cause). */
export function withLimitProblems(platform: Platform, media: MediaFacts[], own: MediaProblem[]): MediaProblem[] {
  const named = new Set(own.map((p) => p.index));
  return [...own, ...limitProblems(platform, media).filter((p) => !named.has(p.index))];
}
