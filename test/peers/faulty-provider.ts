import http from "node:http";
import { listenOnLoopback } from "./loopback";

/**
 * TEST DOUBLES for answers real providers give on a bad day, which no real server here can be made to give:
 *
 * - `startFaultyProxy(upstream)` stands in front of another server (the Mastodon double of
 *   ./mastodon-server.ts) and passes every request through, except those a test arms a fault for.
 * - `startBlueskyStandIn()` stands in for a Bluesky PDS with an AppView behind it (the real PDS the other
 *   tests run has no AppView), written from the lexicons: com.atproto.server.createSession,
 *   com.atproto.repo.listRecords (newest first, `limit` up to 100, `cursor`), app.bsky.actor.getProfile
 *   (followersCount) and app.bsky.feed.getPosts (up to 25 `uris`; likeCount, repostCount, replyCount).
 *
 * A fault answers the next matching request instead: any status, headers (a 429 with Retry-After) and body
 * (not JSON, NUL characters, huge or missing ids, wrong types), or no answer at all (`hang`, a timeout).
 * Every request is recorded (method and path), so a test can count the calls a run made.
 */

export interface Fault {
  status?: number;
  headers?: Record<string, string>;
  /** The raw body, sent as is (JSON or not). */
  body?: string;
  /** Never answer (the client's timeout decides). */
  hang?: boolean;
}

interface Armed {
  path: RegExp;
  fault: Fault;
  times: number;
}

function faults() {
  const armed: Armed[] = [];
  const calls: { method: string; path: string }[] = [];
  return {
    armed,
    calls,
    /** Answer the next `times` requests whose path matches with `fault`. */
    fail(path: RegExp, fault: Fault, times = 1) {
      armed.push({ path, fault, times });
    },
    /** The armed fault for this path, if any (used up one at a time). */
    take(path: string): Fault | null {
      const i = armed.findIndex((a) => a.path.test(path));
      if (i < 0) return null;
      const a = armed[i];
      if (--a.times <= 0) armed.splice(i, 1);
      return a.fault;
    },
    callsTo: (path: RegExp) => calls.filter((c) => path.test(c.path)).length,
  };
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends a fault's answer; a hanging one is left open until the client gives up. */
function answer(res: http.ServerResponse, fault: Fault) {
  if (fault.hang) return;
  res.writeHead(fault.status ?? 200, { "content-type": "application/json; charset=utf-8", ...fault.headers });
  res.end(fault.body ?? "");
}

export async function startFaultyProxy(upstream: string) {
  const f = faults();
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    f.calls.push({ method: req.method ?? "GET", path });
    const body = await readBody(req);
    const fault = f.take(path);
    if (fault) return answer(res, fault);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === "string" && !["host", "connection", "content-length"].includes(e[0])),
    );
    const up = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body: body.length ? new Uint8Array(body) : undefined });
    const text = await up.text();
    // Link headers name the upstream: the client pages through this proxy.
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (k !== "content-length" && k !== "content-encoding" && k !== "transfer-encoding") out[k] = v.split(upstream).join(listening.url);
    });
    res.writeHead(up.status, out);
    res.end(text);
  });
  const listening = await listenOnLoopback(server);
  return { url: listening.url, fail: f.fail, callsTo: f.callsTo, calls: f.calls, stop: listening.stop };
}

export type FaultyProxy = Awaited<ReturnType<typeof startFaultyProxy>>;

export async function startBlueskyStandIn() {
  const f = faults();
  const did = `did:plc:standin${Math.random().toString(36).slice(2, 10)}`;
  const handle = "standin.test";
  const posts: { uri: string; text: string; createdAt: string; likes: number; reposts: number; replies: number }[] = [];
  let followers = 0;
  const server = http.createServer(async (req, res) => {
    const target = new URL(req.url ?? "/", "http://x");
    const method = target.pathname.replace(/^\/xrpc\//, "");
    f.calls.push({ method: req.method ?? "GET", path: method });
    await readBody(req);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(body));
    };
    const fault = f.take(method);
    if (fault) return answer(res, fault);
    if (method === "com.atproto.server.createSession") return send(200, { did, handle, accessJwt: "standin-access", refreshJwt: "standin-refresh" });
    if (method === "app.bsky.actor.getProfile") return send(200, { did, handle, followersCount: followers });
    if (method === "com.atproto.repo.listRecords") {
      const limit = Math.min(100, Number(target.searchParams.get("limit") ?? 50));
      const start = Number(target.searchParams.get("cursor") ?? 0);
      const newestFirst = [...posts].reverse();
      const page = newestFirst.slice(start, start + limit);
      return send(200, {
        records: page.map((p) => ({ uri: p.uri, cid: "bafystandin", value: { $type: "app.bsky.feed.post", text: p.text, createdAt: p.createdAt } })),
        ...(start + limit < newestFirst.length ? { cursor: String(start + limit) } : {}),
      });
    }
    if (method === "app.bsky.feed.getPosts") {
      const uris = target.searchParams.getAll("uris");
      if (uris.length > 25) return send(400, { error: "InvalidRequest", message: "uris must not have more than 25 elements" });
      return send(200, {
        posts: posts
          .filter((p) => uris.includes(p.uri))
          .map((p) => ({ uri: p.uri, cid: "bafystandin", likeCount: p.likes, repostCount: p.reposts, replyCount: p.replies })),
      });
    }
    send(501, { error: "MethodNotImplemented", message: `${method} is not implemented by this stand-in` });
  });
  const listening = await listenOnLoopback(server);
  let seq = 0;
  return {
    url: listening.url,
    did,
    handle,
    fail: f.fail,
    callsTo: f.callsTo,
    calls: f.calls,
    setFollowers(n: number) {
      followers = n;
    },
    addPost(text: string, counts: { likes?: number; reposts?: number; replies?: number } = {}, createdAt = new Date()) {
      const uri = `at://${did}/app.bsky.feed.post/3standin${String(seq++).padStart(6, "0")}`;
      posts.push({ uri, text, createdAt: createdAt.toISOString(), likes: counts.likes ?? 0, reposts: counts.reposts ?? 0, replies: counts.replies ?? 0 });
      return uri;
    },
    stop: listening.stop,
  };
}

export type BlueskyStandIn = Awaited<ReturnType<typeof startBlueskyStandIn>>;
