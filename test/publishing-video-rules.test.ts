import { describe, expect, it } from "vitest";
import { DEFAULT_MEDIA_MAX_BYTES } from "../lib/media/limits";
import { BLUESKY_MAX_IMAGE_BYTES } from "../lib/platforms/bluesky/media";
import { DISCORD_MAX_FILE_BYTES } from "../lib/platforms/discord/message";
import { INSTAGRAM_REEL_MAX_BYTES } from "../lib/platforms/instagram/body";
import { PLATFORM_LIMITS } from "../lib/providers/platform-limits";
import { X_MAX_IMAGE_BYTES } from "../lib/platforms/x/media";
import { mediaProblemsFor } from "../lib/publishing/media-rules";
import { limitProblems } from "../lib/publishing/video-rules";

/** TikTok and YouTube posts are exactly one video of a kind and size the platform takes (lib/publishing/video-rules.ts). */
describe("video platforms' media rules", () => {
  const mp4 = { mediaType: "video" as const, mimeType: "video/mp4", size: 200 * 1024 * 1024 };
  it("one MP4 fits both", () => {
    expect(mediaProblemsFor("tiktok", [mp4])).toEqual([]);
    expect(mediaProblemsFor("youtube", [mp4])).toEqual([]);
  });
  it("an image, two videos or a video too large are refused, naming the platform", () => {
    const image = { mediaType: "image" as const, mimeType: "image/png", size: 1000 };
    expect(mediaProblemsFor("youtube", [image])[0].message).toMatch(/YouTube post is exactly one video/);
    expect(mediaProblemsFor("tiktok", [mp4, mp4])[0].message).toMatch(/TikTok post is exactly one video; 2/);
    expect(mediaProblemsFor("tiktok", [{ ...mp4, size: 5 * 1024 ** 3 }])).toEqual([
      { index: 0, message: "TikTok takes videos of at most 4 GiB (4,294,967,296 bytes); this one is 5 GiB (5,368,709,120 bytes)" },
    ]);
    expect(mediaProblemsFor("tiktok", [{ ...mp4, mimeType: "video/x-msvideo" }])[0].message).toMatch(/TikTok takes video\/mp4/);
    expect(mediaProblemsFor("youtube", [{ ...mp4, mimeType: "video/x-msvideo" }])).toEqual([]);
  });
});

/** Every platform's video length and file sizes from lib/providers/platform-limits.ts (the figures GET /accounts/providers lists). */
describe("documented video length and sizes (limitProblems)", () => {
  const video = (seconds: number | null, size = 10 * 1024 * 1024) => ({
    mediaType: "video" as const,
    mimeType: "video/mp4",
    size,
    durationMs: seconds === null ? null : seconds * 1000,
  });

  it("a video longer than the platform's maximum is refused, naming the platform and both lengths", () => {
    expect(limitProblems("tiktok", [video(600)])).toEqual([]);
    expect(limitProblems("tiktok", [video(600.5)])).toEqual([
      { index: 0, message: "TikTok takes videos of at most 600 seconds (10 min); this one is 600.5 seconds (10 min 0.5 s)" },
    ]);
    // YouTube: 12 hours, what a verified channel takes; 20 minutes is left to YouTube (an unverified channel's 15).
    expect(limitProblems("youtube", [video(20 * 60)])).toEqual([]);
    expect(limitProblems("youtube", [video(13 * 3600)])[0].message).toBe(
      "YouTube takes videos of at most 43,200 seconds (12 h); this one is 46,800 seconds (13 h)",
    );
    expect(limitProblems("instagram", [video(16 * 60)])[0].message).toMatch(/^Instagram takes videos of at most 900 seconds \(15 min\)/);
  });

  it("a video whose duration is unknown is not refused for its length, only for its size", () => {
    expect(limitProblems("tiktok", [video(null)])).toEqual([]);
    expect(limitProblems("tiktok", [{ mediaType: "video", mimeType: "video/mp4", size: 1000 }])).toEqual([]);
    expect(limitProblems("mastodon", [video(null, 100 * 1024 * 1024)])).toEqual([
      { index: 0, message: "Mastodon takes videos of at most 99 MiB (103,809,024 bytes); this one is 100 MiB (104,857,600 bytes)" },
    ]);
  });

  it("a video both too long and too large gets both problems; sizes are checked per item", () => {
    const both = limitProblems("instagram", [video(901, 301 * 1024 * 1024)]);
    expect(both.map((p) => p.message)).toEqual([expect.stringMatching(/at most 300 MiB/), expect.stringMatching(/at most 900 seconds/)]);
    const discord = limitProblems("discord", [video(5), video(5, 11 * 1024 * 1024)]);
    expect(discord).toEqual([{ index: 1, message: expect.stringMatching(/^Discord takes videos of at most 10 MiB/) }]);
    expect(limitProblems("x", [{ mediaType: "image", mimeType: "image/png", size: 6 * 1024 * 1024 }])[0].message).toMatch(/^X takes images of at most 5 MiB/);
  });

  it("kinds a platform refuses are its own rules' problem; webhooks are held to nothing here", () => {
    expect(limitProblems("bluesky", [video(3600, 10 ** 10)])).toEqual([]);
    expect(limitProblems("webhook", [video(10 ** 6, 10 ** 12)])).toEqual([]);
  });

  it("through mediaProblemsFor: one message per item and cause, not a second for what the platform's own rules named", () => {
    const big = { mediaType: "image" as const, mimeType: "image/png", size: 1_000_001 };
    expect(mediaProblemsFor("bluesky", [big])).toEqual([{ index: 0, message: expect.stringMatching(/^Bluesky accepts images of at most 1 MB/) }]);
    expect(mediaProblemsFor("tiktok", [video(601)])).toEqual([{ index: 0, message: expect.stringMatching(/^TikTok takes videos of at most 600 seconds/) }]);
    expect(mediaProblemsFor("mastodon", [video(3 * 3600)])).toEqual([]);
  });

  it("the listed figures agree with what the adapters enforce", () => {
    expect(PLATFORM_LIMITS.bluesky.image_max_bytes).toBe(BLUESKY_MAX_IMAGE_BYTES);
    expect(PLATFORM_LIMITS.x.image_max_bytes).toBe(X_MAX_IMAGE_BYTES);
    expect(PLATFORM_LIMITS.discord.video_max_bytes).toBe(DISCORD_MAX_FILE_BYTES);
    expect(PLATFORM_LIMITS.instagram.video_max_bytes).toBe(INSTAGRAM_REEL_MAX_BYTES);
    expect(PLATFORM_LIMITS.webhook.video_max_bytes).toBe(DEFAULT_MEDIA_MAX_BYTES);
    for (const [platform, limits] of Object.entries(PLATFORM_LIMITS)) {
      // A platform Herald sends no video to has no video figures.
      if (!limits.media_kinds.includes("video")) expect([platform, limits.video_max_bytes, limits.video_max_duration_seconds]).toEqual([platform, null, null]);
    }
  });
});
