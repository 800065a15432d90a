import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planChunks, remainingChunks, sendChunks } from "../lib/providers/chunked-upload";
import { tiktokChunkSize, TIKTOK_MIN_CHUNK_BYTES } from "../lib/platforms/tiktok/upload";
import type { UploadCheckpoint } from "../lib/providers/types";
import { YOUTUBE_CHUNK_BYTES } from "../lib/platforms/youtube/upload";

/** The pure part of chunked uploads (lib/providers/chunked-upload.ts): chunk plans and resuming. */

const covers = (chunks: { start: number; end: number }[], from: number, total: number) => {
  let at = from;
  for (const c of chunks) {
    if (c.start !== at || c.end <= c.start) return false;
    at = c.end;
  }
  return at === total;
};

describe("planChunks", () => {
  it("covers the file contiguously, every chunk but the last of chunkSize bytes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 5_000, max: 3_000_000 }), (total, size) => {
        const chunks = planChunks(total, size);
        expect(covers(chunks, 0, total)).toBe(true);
        expect(chunks.slice(0, -1).every((c) => c.end - c.start === size)).toBe(true);
        expect(chunks.at(-1)!.end - chunks.at(-1)!.start).toBeLessThanOrEqual(size);
      }),
    );
  });

  it("with lastAbsorbs (TikTok), floor(total / size) chunks, the last under twice the size", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 5_000, max: 3_000_000 }), (total, size) => {
        const chunks = planChunks(total, size, true);
        expect(covers(chunks, 0, total)).toBe(true);
        expect(chunks.length).toBe(Math.max(1, Math.floor(total / size)));
        if (total >= size) expect(chunks.at(-1)!.end - chunks.at(-1)!.start).toBeLessThan(2 * size);
      }),
    );
  });

  it("plans nothing for an empty or nonsensical file", () => {
    expect(planChunks(0, 10)).toEqual([]);
    expect(planChunks(10, 0)).toEqual([]);
    expect(planChunks(Number.NaN, 10)).toEqual([]);
  });

  it("TikTok: a file under 5 MB is one chunk of its own size; YouTube chunks are multiples of 256 KiB", () => {
    expect(tiktokChunkSize(TIKTOK_MIN_CHUNK_BYTES - 1)).toBe(TIKTOK_MIN_CHUNK_BYTES - 1);
    expect(tiktokChunkSize(200 * 1024 * 1024)).toBeGreaterThanOrEqual(TIKTOK_MIN_CHUNK_BYTES);
    expect(YOUTUBE_CHUNK_BYTES % (256 * 1024)).toBe(0);
  });
});

describe("remainingChunks", () => {
  it("starts exactly at the confirmed offset and never re-sends a byte before it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000_000 }),
        fc.integer({ min: 5_000, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (total, size, f) => {
          const offset = Math.floor(total * f);
          const rest = remainingChunks(planChunks(total, size), offset);
          if (offset >= total) expect(rest).toEqual([]);
          else expect(covers(rest, offset, total)).toBe(true);
        },
      ),
    );
  });
});

describe("sendChunks", () => {
  it("saves the confirmed offset after every chunk and resumes from it", async () => {
    const saved: UploadCheckpoint[] = [];
    const sent: number[] = [];
    const start: UploadCheckpoint = { session: "s", platformId: null, total: 100, chunkSize: 30, offset: 0, phase: "uploading" };
    const uploads = {
      load: async () => null,
      save: async (_k: string, cp: UploadCheckpoint) => {
        saved.push(cp);
        if (saved.length === 2) throw new Error("killed");
      },
      clear: async () => {},
    };
    const steps = {
      key: "video-0",
      chunks: planChunks(100, 30),
      uploads,
      read: async (c: { start: number; end: number }) => new Uint8Array(c.end - c.start),
      send: async (c: { start: number; end: number }) => {
        sent.push(c.start);
        return { offset: c.end };
      },
    };
    await expect(sendChunks({ ...steps, checkpoint: start })).rejects.toThrow("killed");
    const done = await sendChunks({ ...steps, checkpoint: saved.at(-1)! });
    expect(sent).toEqual([0, 30, 60, 90]);
    expect(done.offset).toBe(100);
  });

  it("stops when the platform confirms less than was sent", async () => {
    const cp: UploadCheckpoint = { session: "s", platformId: null, total: 10, chunkSize: 10, offset: 0, phase: "uploading" };
    await expect(
      sendChunks({ key: "k", checkpoint: cp, chunks: planChunks(10, 10), read: async () => new Uint8Array(10), send: async () => ({ offset: 4 }) }),
    ).rejects.toMatchObject({ info: { code: "upload_incomplete", retryable: true } });
  });
});
