import { createHash, type Hash } from "node:crypto";
import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * What the YouTube and TikTok stand-ins (./youtube-api.ts, ./tiktok-api.ts) share: a node:http server that
 * reads request bodies as streams, so a 200 MB upload is counted and hashed chunk by chunk, never held, and
 * faults that need the socket (an answer lost after a chunk was stored).
 */

export interface SinkRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** The body, consumed by the handler: `json()` for small ones, `sink()` to stream into an upload. */
  req: http.IncomingMessage;
}

export interface SinkAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Destroy the connection instead of answering (the answer is lost; what was stored stays stored). */
  drop?: boolean;
  /** A JSON text sent as it is, instead of `body` (a platform's int64 numbers that JSON.stringify cannot write). */
  rawJson?: string;
}

export async function readJsonBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** An upload as the platform holds it: bytes counted and hashed as they arrive; small files kept whole. */
export class UploadSink {
  received = 0;
  /** Each chunk the platform took: where it started and how many bytes it had (proof nothing was sent twice). */
  chunks: { start: number; bytes: number }[] = [];
  private hash: Hash = createHash("sha256");
  private kept: Buffer[] | null;
  constructor(
    readonly total: number,
    keepUpTo = 4 * 1024 * 1024,
  ) {
    this.kept = total <= keepUpTo ? [] : null;
  }
  /** Streams one chunk in; answers its byte count (the caller checks it against Content-Range). */
  async take(req: http.IncomingMessage, start: number): Promise<number> {
    let n = 0;
    // Hashed as it arrives, never held (a chunk cut mid-way would spoil the hash: the stand-ins cut none).
    for await (const c of req) {
      n += (c as Buffer).length;
      this.hash.update(c as Buffer);
      this.kept?.push(c as Buffer);
    }
    this.chunks.push({ start, bytes: n });
    this.received += n;
    return n;
  }
  get complete() {
    return this.received === this.total;
  }
  digest() {
    return this.hash.copy().digest("hex");
  }
  bytes(): Uint8Array | null {
    return this.kept ? new Uint8Array(Buffer.concat(this.kept)) : null;
  }
}

/** `Content-Range: bytes a-b/total` or `bytes *\u002ftotal`. */
export function contentRange(value: string | undefined): { start: number; end: number; total: number } | { query: true; total: number } | null {
  const q = /^bytes \*\/(\d+)$/.exec(value ?? "");
  if (q) return { query: true, total: Number(q[1]) };
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value ?? "");
  return m ? { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) } : null;
}

export async function startSinkServer(handle: (r: SinkRequest, url: string) => Promise<SinkAnswer>) {
  let url = "";
  const server = http.createServer(async (req, res) => {
    const target = new URL(req.url ?? "/", url);
    let answer: SinkAnswer;
    try {
      answer = await handle({ method: req.method ?? "GET", path: target.pathname, query: target.searchParams, headers: req.headers, req }, url);
    } catch (err) {
      answer = { status: 500, body: { error: String(err) } };
    }
    if (!req.complete) req.resume();
    if (answer.drop) {
      res.socket?.destroy();
      return;
    }
    res.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers });
    res.end(answer.rawJson ?? (answer.body === undefined ? "" : JSON.stringify(answer.body)));
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
