import http from "node:http";
import { oauthAuthority, type OAuthServerOptions } from "./oauth-server";
import type { SinkAnswer, SinkRequest } from "./chunk-sink";
import { listenOnLoopback } from "./loopback";

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
    /** Every token of this account stops working (revoked, or expired at the platform). */
    expireAll(account: A) {
      for (const t of tokens.values()) if (t.account === account) t.expired = true;
    },
    /** The tokens issued for this account (a test checks none appears in Herald's answers). */
    tokensOf(account: A): string[] {
      return [...tokens].filter(([, t]) => t.account === account).map(([token]) => token);
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
  const listening = await listenOnLoopback(server);
  url = `${listening.url}`;
  return {
    url,
    async stop() {
      await listening.stop();
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
  const { url, stop } = await listenOnLoopback(host);
  return {
    url,
    fetched,
    image: (name = "pixel.png", alt: string | null = "A single pixel") => ({ url: `${url}/${name}`, mime_type: "image/png", alt_text: alt }),
    stop,
  };
}

/** The platform's own OAuth endpoint paths (its authorization and token URLs keep their paths under `<platform>_auth_base`). */
export type OAuthPaths = NonNullable<OAuthServerOptions["paths"]>;

/**
 * The platform's authorization server (test/peers/oauth-server.ts) mounted on the stand-in at the platform's
 * own paths, so one base URL serves `<platform>_auth_base` and `<platform>_api_base`. Every access token it
 * issues (at connection and at each refresh) becomes a bearer token of the account being connected: cases run
 * one after another, each connecting its own account (`connectAs`) before anything refreshes its token.
 */
export function mountOAuth<A>(tokens: ReturnType<typeof tokenRegistry<A>>, options: Omit<OAuthServerOptions, "onIssue" | "paths"> & { paths: OAuthPaths }) {
  let current: A | null = null;
  const authority = oauthAuthority({
    ...options,
    onIssue: (token) => {
      if (current) tokens.issue(token, current);
    },
  });
  return {
    authority,
    /** The account the next authorization approves (and whose tokens refreshes renew). */
    connectAs(account: A) {
      current = account;
    },
    /** Answers the request when it is one of the OAuth endpoints; false otherwise. */
    async answer(req: StandInRequest, send: Send): Promise<boolean> {
      const out = await authority.answer({ method: req.method, path: req.path, query: req.query, headers: req.headers, body: req.raw });
      if (!out) return false;
      send(out.status, out.body, out.headers);
      return true;
    },
    /**
     * The same for a chunk-sink stand-in (./chunk-sink.ts), null when the request is not an OAuth one; `tokens` gives
     * a token answer the platform's own shape (its user id, its token_type).
     */
    async sinkAnswer(r: SinkRequest, tokens: (body: Record<string, unknown>) => Record<string, unknown> = (b) => b): Promise<SinkAnswer | null> {
      if (r.path !== authority.paths.authorize && r.path !== authority.paths.token) return null;
      const chunks: Buffer[] = [];
      for await (const c of r.req) chunks.push(c as Buffer);
      const out = await authority.answer({ method: r.method, path: r.path, query: r.query, headers: r.headers, body: Buffer.concat(chunks) });
      if (!out) return { status: 404 };
      const body = out.body !== null && typeof out.body === "object" && "access_token" in out.body ? tokens({ ...out.body }) : out.body;
      return { status: out.status, body, headers: out.headers };
    },
  };
}
