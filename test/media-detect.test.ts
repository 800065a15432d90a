import { describe, expect, it } from "vitest";
import { aspectOf, displayed, rotationOfExif, rotationOfMatrix } from "../lib/media/classify";
import { audioCodecName, describedAudioCodec, videoCodecName, videoProfile } from "../lib/media/codecs";
import { detectMedia } from "../lib/media/detect";
import { cleanFilename } from "../lib/media/filename";
import { parseRange } from "../lib/media/range";
import { containsPattern, normalizeTags, parseTagList, searchDocument, tagProblem } from "../lib/media/tags";
import { fixture } from "./helpers/media";

describe("detectMedia (bytes only)", () => {
  it("reads a phone-style rotated MP4 as displayed: turned 90° clockwise, so 64×48", async () => {
    const result = await detectMedia(fixture("rotated-cw90-48x64.mp4"));
    expect(result).toMatchObject({ ok: true, media: { mimeType: "video/mp4", rotation: 90, width: 64, height: 48, frameRate: 25, durationMs: 1000 } });
  });

  it("an MP4 with sound only is audio/mp4", async () => {
    const result = await detectMedia(fixture("voice-1s.m4a"));
    expect(result).toMatchObject({ ok: true, media: { mimeType: "audio/mp4", mediaType: "audio", audioCodec: "aac", width: null } });
    if (result.ok) expect(result.media.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it("refuses what is not media, with a reason", async () => {
    for (const name of ["notes.txt", "doc.pdf"]) {
      const result = await detectMedia(fixture(name));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(10);
    }
    // A PNG signature followed by garbage: claims to be an image but has no readable header.
    const fake = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    expect((await detectMedia(fake)).ok).toBe(false);
  });
});

describe("classify", () => {
  it("aspect: square within 2 %, else by the longer side", () => {
    expect(aspectOf(1000, 1000)).toBe("square");
    expect(aspectOf(1000, 1020)).toBe("square");
    expect(aspectOf(1000, 1021)).toBe("portrait");
    expect(aspectOf(1920, 1080)).toBe("landscape");
    expect(aspectOf(null, 10)).toBeNull();
    expect(aspectOf(0, 0)).toBeNull();
  });

  it("rotation from a display matrix and from EXIF; a quarter turn swaps the sides", () => {
    expect(rotationOfMatrix([65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30])).toBe(0);
    expect(rotationOfMatrix([0, 65536, 0, -65536, 0, 0, 0, 0, 1 << 30])).toBe(90);
    expect(rotationOfMatrix([-65536, 0, 0, 0, -65536, 0, 0, 0, 1 << 30])).toBe(180);
    expect(rotationOfMatrix([0, -65536, 0, 65536, 0, 0, 0, 0, 1 << 30])).toBe(270);
    expect(rotationOfMatrix(undefined)).toBe(0);
    expect([1, 3, 6, 8, undefined].map(rotationOfExif)).toEqual([0, 180, 90, 270, 0]);
    expect(displayed(1920, 1080, 90)).toEqual({ width: 1080, height: 1920 });
    expect(displayed(1920, 1080, 180)).toEqual({ width: 1920, height: 1080 });
  });
});

describe("codec names", () => {
  it.each([
    ["avc1.42c01e", "h264", "Constrained Baseline"],
    ["avc1.42001e", "h264", "Baseline"],
    ["avc1.4d401f", "h264", "Main"],
    ["avc1.640028", "h264", "High"],
    ["hvc1.2.4.L120.B0", "hevc", "Main 10"],
    ["av01.0.04M.08", "av1", "Main"],
    ["vp09.00.10.08", "vp9", "Profile 0"],
    ["mp4v.20.9", "mpeg4", null],
  ])("%s → %s / %s", (codec, name, profile) => {
    expect(videoCodecName(codec)).toBe(name);
    expect(videoProfile(codec)).toBe(profile);
  });

  it("audio", () => {
    expect(["mp4a.40.2", "mp4a.40.5", "mp4a.6b", "ac-3", "Opus", "fLaC"].map(audioCodecName)).toEqual(["aac", "aac", "mp3", "ac3", "opus", "flac"]);
    expect(["MPEG 1 Layer 3", "MPEG-4/AAC", "PCM", "E-AC-3", "FLAC", undefined].map(describedAudioCodec)).toEqual(["mp3", "aac", "pcm", "eac3", "flac", null]);
  });
});

describe("tags and search", () => {
  it("normalises: trimmed, lower-case, de-duplicated, empties dropped", () => {
    expect(parseTagList(" Summer, beach ,summer,, BEACH ")).toEqual(["summer", "beach"]);
    expect(normalizeTags(["A", "a ", " b"])).toEqual(["a", "b"]);
    expect(tagProblem(["ok"])).toBeNull();
    expect(tagProblem(["x".repeat(51)])).not.toBeNull();
    expect(tagProblem(Array.from({ length: 51 }, (_, i) => `t${i}`))).not.toBeNull();
    expect(tagProblem(["tab\there"])).not.toBeNull();
  });

  it("search document and LIKE pattern", () => {
    expect(searchDocument({ originalFilename: "A.PNG", altText: null, tags: ["x", "y"] })).toBe("a.png\u001f\u001fx\u001fy");
    expect(containsPattern("50%_Off\\")).toBe("%50\\%\\_off\\\\%");
  });
});

describe("byte ranges", () => {
  it.each([
    ["bytes=0-9", 100, { offset: 0, length: 10 }],
    ["bytes=90-", 100, { offset: 90, length: 10 }],
    ["bytes=-5", 100, { offset: 95, length: 5 }],
    ["bytes=-500", 100, { offset: 0, length: 100 }],
    ["bytes=50-1000", 100, { offset: 50, length: 50 }],
    ["bytes=100-", 100, null],
    ["bytes=9-0", 100, null],
    ["bytes=0-1,5-6", 100, null],
    ["items=0-1", 100, null],
    [undefined, 100, null],
  ])("%s of %i", (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe("file names", () => {
  it("keeps the last path segment, drops control characters, bounds the length", () => {
    expect(cleanFilename("C:\\fakepath\\photo.jpg")).toBe("photo.jpg");
    expect(cleanFilename("../../etc/passwd")).toBe("passwd");
    expect(cleanFilename("a\u0000b\nc.png")).toBe("abc.png");
    expect(cleanFilename("")).toBeNull();
    expect(cleanFilename("x".repeat(300))).toHaveLength(255);
  });
});
