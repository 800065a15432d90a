import { describe, expect, it } from "vitest";
import { mediaProblemsFor } from "../lib/publishing/media-rules";

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
    expect(mediaProblemsFor("tiktok", [{ ...mp4, size: 5 * 1024 ** 3 }])[0]).toMatchObject({ index: 0, message: expect.stringMatching(/at most 4 GB/) });
    expect(mediaProblemsFor("tiktok", [{ ...mp4, mimeType: "video/x-msvideo" }])[0].message).toMatch(/TikTok takes video\/mp4/);
    expect(mediaProblemsFor("youtube", [{ ...mp4, mimeType: "video/x-msvideo" }])).toEqual([]);
  });
});
