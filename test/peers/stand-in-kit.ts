import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * What the X, LinkedIn and Threads stand-ins (test/peers/x-api.ts, linkedin-api.ts, threads-api.ts) share:
 * a node:http server on loopback, bearer tokens (unknown or expired → 401), and faults injected into the
 * calls that post: `failNext(n, status, headers)` answers them with that status and headers (a 429 with the
 * platform's reset header), `hangNext(n)` stores the post and never answers (or, `afterStoring: false`,
 * never answers and stores nothing), so a client's timeout leaves the outcome unknown.
 */

export interface Fault {
  status: number;
  headers: Record<string, string>;
  hang?: boolean;
  afterStoring?: boolean;
}

export interface StandInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

export type Send = (status: number, body: unknown, headers?: Record<string, string>) => void;

export function faultQueue() {
  const faults: Fault[] = [];
  return {
    faults,
    failNext(n: number, status: number, headers: Record<string, string> = {}) {
      for (let i = 0; i < n; i++) faults.push({ status, headers });
    },
    hangNext(n: number, o: { afterStoring?: boolean } = {}) {
      for (let i = 0; i < n; i++) faults.push({ status: 0, headers: {}, hang: true, afterStoring: o.afterStoring ?? true });
    },
    /** The next fault, if any (taken off the queue). */
    take: () => faults.shift(),
  };
}

/** Tokens the stand-in accepts, each for one account; an expired one answers 401 like an unknown one. */
export function tokenRegistry<A>() {
  const tokens = new Map<string, { account: A; expired: boolean }>();
  return {
    issue(token: string, account: A) {
      tokens.set(token, { account, expired: false });
    },
    expire(token: string) {
      const t = tokens.get(token);
      if (t) t.expired = true;
    },
    revoke(token: string) {
      tokens.delete(token);
    },
    /** The account of a request's `Authorization: Bearer` token, or null. */
    accountOf(headers: http.IncomingHttpHeaders): A | null {
      const token = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
      const t = token ? tokens.get(token) : undefined;
      return t && !t.expired ? t.account : null;
    },
  };
}

export const newToken = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;

/** Starts a JSON server; `handle` answers through `send`, or returns without answering (a hang). */
export async function startServer(handle: (req: StandInRequest, send: Send, url: string) => Promise<void> | void) {
  let url = "";
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = new URL(req.url ?? "/", url);
    const send: Send = (status, body, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(body === undefined ? "" : JSON.stringify(body));
    };
    try {
      await handle(
        { method: req.method ?? "GET", path: target.pathname, query: target.searchParams, headers: req.headers, raw: Buffer.concat(chunks) },
        send,
        url,
      );
    } catch (err) {
      send(500, { error: String(err) });
    }
  });
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A request body as JSON, or undefined when it is not JSON. */
export function jsonOf(raw: Buffer): any {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** A multipart or urlencoded body's fields, parsed as fetch parses them. */
export async function formOf(req: StandInRequest): Promise<FormData | null> {
  try {
    return await new Response(new Uint8Array(req.raw), { headers: { "content-type": String(req.headers["content-type"] ?? "") } }).formData();
  } catch {
    return null;
  }
}

/** A PNG of one pixel, for media tests. */
export const ONE_PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

/** Serves media the way Herald's signed media URLs do: GET /<name> answers the bytes; every fetch recorded. */
export async function startMediaHost() {
  const fetched: string[] = [];
  const host = http.createServer((req, res) => {
    fetched.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/png", "content-length": String(ONE_PIXEL_PNG.length) });
    res.end(ONE_PIXEL_PNG);
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  return {
    url,
    fetched,
    image: (name = "pixel.png", alt: string | null = "A single pixel") => ({ url: `${url}/${name}`, mime_type: "image/png", alt_text: alt }),
    stop: () => new Promise<void>((resolve) => host.close(() => resolve())),
  };
}
