import { exports as workerExports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { jsonMaxBytes } from "../../lib/http/body-limits";
import { mediaMaxBytes } from "../../lib/media/limits";
import { env, newUser } from "./helpers";

/**
 * Issue 37 at a group Worker reached directly (functions/all-groups.ts, the pool's loopback service), not through
 * the gateway: a chunked body over the JSON limit is answered 413, and what came after the limit is read and dropped
 * before the answer (lib/http/body-gate.ts capRequestBody, for JSON and for media uploads), since workerd reads nothing of a request once its answer is sent.
 * Slow in the pool (about 10 s: the reads through its loopback service), as the router's test there.
 */
const groups = (workerExports as unknown as { default: Fetcher }).default;
const EIGHT_MB = 8 * 1024 * 1024;
const CHUNK = 1024 * 1024;

function chunkedBody(total: number) {
  const produced = { bytes: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (produced.bytes >= total) return controller.close();
        const size = Math.min(CHUNK, total - produced.bytes);
        produced.bytes += size;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
      cancel() {
        produced.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, produced };
}

describe("a group Worker's own body gate, inside workerd", () => {
  it("refuses an 8 MB chunked body with 413 problem+json, reads the rest to its end first, and answers the next request", { timeout: 60_000 }, async () => {
    const user = await newUser();
    const { stream, produced } = chunkedBody(EIGHT_MB);
    const res = await groups.fetch("http://localhost/publications", {
      method: "POST",
      body: stream,
      headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { type: string; status: number; detail: string };
    expect(problem).toMatchObject({ type: expect.stringMatching(/\/problems\/payload-too-large$/), status: 413 });
    expect(problem.detail).toContain(`${jsonMaxBytes({})} bytes`);
    expect(produced).toEqual({ bytes: EIGHT_MB, cancelled: false });
    const next = await groups.fetch("http://localhost/workspaces", { headers: { authorization: `Bearer ${user.token}` } });
    expect(next.status, await next.text()).toBe(200);
  });

  it("refuses an 8 MB chunked upload over MEDIA_MAX_BYTES with 413, reads the rest to its end first, and answers the next request", {
    timeout: 60_000,
  }, async () => {
    const user = await newUser();
    const max = mediaMaxBytes(env);
    expect(max).toBeLessThan(EIGHT_MB);
    const { stream, produced } = chunkedBody(EIGHT_MB);
    const res = await groups.fetch("http://localhost/media", {
      method: "POST",
      body: stream,
      headers: { authorization: `Bearer ${user.token}`, "content-type": "multipart/form-data; boundary=x" },
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { type: string; detail: string };
    expect(problem.type).toMatch(/\/problems\/payload-too-large$/);
    expect(problem.detail).toContain(`${max} bytes (MEDIA_MAX_BYTES)`);
    expect(produced).toEqual({ bytes: EIGHT_MB, cancelled: false });
    const next = await groups.fetch("http://localhost/workspaces", { headers: { authorization: `Bearer ${user.token}` } });
    expect(next.status, await next.text()).toBe(200);
  });
});
