import http from "node:http";
import { forwardBuffered, listenOnLoopback } from "../../peers/loopback";

/**
 * A small HTTP proxy a driver puts between Herald and a platform's server (the real Bluesky PDS, the
 * Mastodon test double) to make the platform answer as it does on a bad day, in the platform's own words
 * (its status, headers and body), and to record what the platform received. Every request is forwarded
 * unless a fault armed for it says otherwise:
 * - `{ answer: {status, headers, body} }`: answered here, nothing forwarded (a 401, a 429 with reset headers);
 * - `"forward-then-hang"`: forwarded (the platform stores the post) and its answer never comes.
 *
 * `rewriteServiceEndpoint`: an AT Protocol session names its PDS in the DID document; pointing it back at
 * the proxy keeps the repository writes passing here (as test/faults/proxy.ts does).
 */

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** What Herald was answered (0: nothing). */
  answered: number;
  /** The platform's answer, when forwarded and answered. */
  upstream?: { status: number; body: Buffer };
}

export type FaultAction = { answer: { status: number; headers?: Record<string, string>; body: string } } | "forward-then-hang";

interface Armed {
  match: (r: ProxiedRequest) => boolean;
  action: FaultAction;
  times: number;
}

export async function startFaultProxy(upstream: string, opts: { rewriteServiceEndpoint?: boolean } = {}) {
  const requests: ProxiedRequest[] = [];
  const armed: Armed[] = [];
  const base = new URL(upstream);
  let url = "";

  const rewrite = (r: ProxiedRequest, body: Buffer): Buffer => {
    if (!opts.rewriteServiceEndpoint || !/^\/xrpc\/com\.atproto\.server\.(createSession|getSession|refreshSession)/.test(r.path)) return body;
    try {
      const json = JSON.parse(body.toString("utf8"));
      for (const s of json?.didDoc?.service ?? []) if (typeof s.serviceEndpoint === "string") s.serviceEndpoint = url;
      return Buffer.from(JSON.stringify(json));
    } catch {
      return body;
    }
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const record: ProxiedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks), answered: 0 };
    requests.push(record);
    const answer = (status: number, headers: http.IncomingHttpHeaders, payload: Buffer) => {
      if (res.destroyed) return;
      record.answered = status;
      const h = { ...headers, "content-length": String(payload.length) };
      delete h["transfer-encoding"];
      delete h.connection;
      res.writeHead(status, h).end(payload);
    };
    const i = armed.findIndex((a) => a.match(record));
    const fault = i < 0 ? null : armed[i];
    if (fault && --fault.times <= 0) armed.splice(i, 1);
    try {
      if (fault && fault.action !== "forward-then-hang") {
        const { status, headers, body } = fault.action.answer;
        return answer(status, { "content-type": "application/json; charset=utf-8", ...headers }, Buffer.from(body));
      }
      const got = await forwardBuffered(base, record);
      record.upstream = { status: got.status, body: got.body };
      if (fault) return; // the platform took it; Herald never hears back
      answer(got.status, got.headers, rewrite(record, got.body));
    } catch (err) {
      answer(502, { "content-type": "text/plain" }, Buffer.from(String(err)));
    }
  });
  const listening = await listenOnLoopback(server);
  url = `${listening.url}`;

  return {
    url,
    requests,
    /** Answer the next `times` requests matching `match` with `action` (Infinity: every one from now on). */
    arm(match: (r: ProxiedRequest) => boolean, action: FaultAction, times = 1) {
      armed.push({ match, action, times });
    },
    async stop() {
      await listening.stop();
    },
  };
}

export type FaultProxy = Awaited<ReturnType<typeof startFaultProxy>>;
