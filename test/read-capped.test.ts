import { describe, expect, it } from "vitest";
import { readCapped, readTextCapped } from "../lib/net/read-capped";
import { MAX_PROVIDER_ANSWER_BYTES, readJson } from "../lib/providers/http";

/** A body that streams `total` bytes in 64 KiB chunks and counts how many it was asked for. */
function streamed(total: number, headers: Record<string, string> = {}) {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      const piece = chunk.subarray(0, Math.min(chunk.length, total - pulled));
      pulled += piece.length;
      controller.enqueue(piece);
    },
  });
  return { res: new Response(body, { headers }), pulled: () => pulled };
}

describe("provider answers are read with a size cap", () => {
  it("reads a body within the cap whole", async () => {
    expect(await readTextCapped(new Response("hello"), 5)).toBe("hello");
    expect(await readJson(new Response('{"id":"1"}'))).toEqual({ id: "1" });
  });

  it("stops reading a body without Content-Length as soon as it passes the cap", async () => {
    const { res, pulled } = streamed(50 * 1024 * 1024);
    expect(await readCapped(res, 1024 * 1024)).toBeNull();
    expect(pulled()).toBeLessThan(2 * 1024 * 1024); // not the 50 MiB on offer
  });

  it("refuses a declared Content-Length above the cap without reading", async () => {
    const { res, pulled } = streamed(4 * 1024 * 1024, { "content-length": String(4 * 1024 * 1024) });
    expect(await readCapped(res, 1024 * 1024)).toBeNull();
    expect(pulled()).toBeLessThanOrEqual(64 * 1024);
  });

  it("treats an oversized provider JSON answer as unreadable (null), never buffering it", async () => {
    const { res, pulled } = streamed(MAX_PROVIDER_ANSWER_BYTES * 10);
    expect(await readJson(res)).toBeNull();
    expect(pulled()).toBeLessThan(MAX_PROVIDER_ANSWER_BYTES * 2);
  });
});
