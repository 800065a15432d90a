import { exports as workerExports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { API_INFO } from "../../functions/api-info";
import { ROUTES } from "../../functions/routes";
import { DEFAULT_JSON_MAX_BYTES } from "../../lib/http/body-limits";
import { createRouterApp, groupBinding } from "../../lib/http/router";
import { env, newUser } from "./helpers";

/**
 * The gateway's body limit (lib/http/router.ts) inside workerd: the router in front of the real group Workers
 * (functions/all-groups.ts through the pool's loopback binding), each group binding noting what reached it.
 */
const groups = (workerExports as unknown as { default: Fetcher }).default;
const router = createRouterApp(ROUTES, API_INFO);

function routerEnv() {
  const reached: string[] = [];
  const bindings: Record<string, unknown> = { ...env };
  for (const group of Object.keys(ROUTES)) {
    bindings[groupBinding(group)] = {
      fetch: (request: Request) => {
        reached.push(`${request.method} ${new URL(request.url).pathname}`);
        return groups.fetch(request);
      },
    };
  }
  return { bindings, reached };
}

/** A chunked body (no Content-Length) of `total` bytes in 64 KiB chunks, noting how much of it was read. */
function chunkedBody(total: number) {
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      controller.enqueue(piece);
    },
  });
  return { stream, read: () => sent };
}

async function expectTooLarge(res: Response) {
  const text = await res.text();
  expect(res.status, text).toBe(413);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(text) as { type: string; title: string; status: number; detail: string };
  expect(problem).toMatchObject({ status: 413, title: expect.any(String) });
  expect(problem.type).toMatch(/payload-too-large$/);
  expect(problem.detail).toContain(String(DEFAULT_JSON_MAX_BYTES));
}

const post = (path: string, body: BodyInit, headers: Record<string, string>) =>
  new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

describe("the gateway's body limit inside workerd", () => {
  it("answers a declared Content-Length over the limit 413 without forwarding it", async () => {
    const { bindings, reached } = routerEnv();
    const body = new Uint8Array(8 * 1024 * 1024).fill(120);
    const res = await router.fetch(post("/publications", body, { "content-length": String(body.length) }), bindings);
    await expectTooLarge(res);
    expect(reached).toEqual([]);
  });

  it("answers a chunked body 413 once it passes the limit, having read all of it before answering", async () => {
    const user = await newUser();
    const { bindings, reached } = routerEnv();
    const total = 8 * 1024 * 1024;
    const body = chunkedBody(total);
    const res = await router.fetch(post("/publications", body.stream, { authorization: `Bearer ${user.token}` }), bindings);
    await expectTooLarge(res);
    expect(reached).toEqual(["POST /publications"]);
    expect(body.read()).toBe(total);
  });

  it("passes a chunked body under the limit on to validation", async () => {
    const user = await newUser();
    const { bindings } = routerEnv();
    const padding = "x".repeat(DEFAULT_JSON_MAX_BYTES - 64);
    const stream = new Blob([`{"padding":"${padding}"}`]).stream();
    const res = await router.fetch(post("/publications", stream, { authorization: `Bearer ${user.token}` }), bindings);
    const text = await res.text();
    expect(res.status, text).toBeGreaterThanOrEqual(400);
    expect(res.status, text).toBeLessThan(500);
    expect(res.status, text).not.toBe(413);
  });

  it("reads what a group left unread (a 401 needs none of the body) before answering", async () => {
    const { bindings } = routerEnv();
    const total = 512 * 1024;
    const body = chunkedBody(total);
    const res = await router.fetch(post("/publications", body.stream, {}), bindings);
    expect(res.status, await res.text()).toBe(401);
    expect(body.read()).toBe(total);
  });
});
