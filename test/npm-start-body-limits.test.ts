import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomText } from "../lib/ids";
import { DEFAULT_JSON_MAX_BYTES } from "../lib/http/body-limits";
import { startHerald } from "../local/services/herald-process";

/**
 * Issue 37: an oversized body must be refused with 413 at the gateway, and the service (and the client's connection)
 * must keep answering afterwards. Against `npm start`, through node's http client so a chunked body is really chunked.
 * Before the change an 8 MB body answered 503 "Your worker restarted mid-request" and the next request got ECONNRESET.
 */
const token = `hld_${randomText(40)}`;
let stack: Awaited<ReturnType<typeof startHerald>> | undefined;
let port = 0;

beforeAll(async () => {
  stack = await startHerald({ BOOTSTRAP_ADMIN_EMAIL: `limits-${randomText(6)}@example.test`, BOOTSTRAP_ADMIN_TOKEN: token });
  port = stack.ports.PORT;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

interface Answer {
  status: number;
  contentType: string;
  text: string;
  /** The client side's port of the connection it came on: equal ports, same connection. */
  localPort: number;
}

/** One request; `body` as one Buffer (Content-Length) or as chunks (Transfer-Encoding: chunked). */
function send(agent: http.Agent, method: string, path: string, body?: Buffer | Buffer[], auth = true): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { "content-type": "application/json" };
    if (auth) headers.authorization = `Bearer ${token}`;
    if (Buffer.isBuffer(body)) headers["content-length"] = body.length;
    let localPort = 0;
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          text: Buffer.concat(parts).toString("utf8"),
          localPort,
        }),
      );
      res.on("error", reject);
    });
    req.on("socket", (socket) => {
      const note = () => {
        localPort = socket.localPort ?? 0;
      };
      if (socket.localPort) note();
      else socket.once("connect", note);
    });
    req.on("error", reject);
    void (async () => {
      if (Array.isArray(body)) {
        for (const chunk of body) if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
        req.end();
      } else req.end(body);
    })();
  });
}

const eightMegabytes = () => Buffer.from(`{"text":"${"x".repeat(8 * 1024 * 1024)}"}`);
const inChunks = (buffer: Buffer, size = 64 * 1024) =>
  Array.from({ length: Math.ceil(buffer.length / size) }, (_, i) => buffer.subarray(i * size, (i + 1) * size));

function expectTooLarge(answer: Answer) {
  expect(answer.status, answer.text).toBe(413);
  expect(answer.contentType).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(answer.text) as { type: string; title: string; status: number; detail: string };
  expect(problem.status).toBe(413);
  expect(problem.type).toMatch(/payload-too-large/);
  expect(problem.title).toBeTruthy();
  expect(problem.detail).toContain(String(DEFAULT_JSON_MAX_BYTES));
}

/** After a refused body: the same connection and a new one both still answer /healthz and an authenticated read. */
async function expectStillAnswering(agent: http.Agent, refused: Answer) {
  const health = await send(agent, "GET", "/healthz", undefined, false);
  expect(health.status, health.text).toBe(200);
  expect(health.localPort, "the keep-alive connection was reused").toBe(refused.localPort);
  const read = await send(agent, "GET", "/workspaces");
  expect(read.status, read.text).toBe(200);
  const fresh = new http.Agent({ keepAlive: true });
  try {
    expect((await send(fresh, "GET", "/healthz", undefined, false)).status).toBe(200);
    expect((await send(fresh, "GET", "/workspaces")).status).toBe(200);
  } finally {
    fresh.destroy();
  }
}

describe("request bodies over the limit under npm start", () => {
  it("an 8 MB body with Content-Length is answered 413 problem+json, and the service keeps answering", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, "POST", "/publications", eightMegabytes());
      expectTooLarge(refused);
      await expectStillAnswering(agent, refused);
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it("an 8 MB chunked body (no Content-Length) is answered 413 problem+json, and the service keeps answering", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, "POST", "/publications", inChunks(eightMegabytes()));
      expectTooLarge(refused);
      await expectStillAnswering(agent, refused);
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it("a body just under the limit reaches validation (a 4xx that is not 413), with Content-Length and chunked", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const frame = '{"padding":""}'.length;
      const body = Buffer.from(`{"padding":"${"x".repeat(DEFAULT_JSON_MAX_BYTES - frame - 16)}"}`);
      for (const sent of [body, inChunks(body)]) {
        const answer = await send(agent, "POST", "/publications", sent);
        expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
        expect(answer.status, answer.text).toBeLessThan(500);
        expect(answer.status, answer.text).not.toBe(413);
      }
    } finally {
      agent.destroy();
    }
  }, 120_000);
});
