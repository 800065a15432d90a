import http from "node:http";
import { forwardBuffered, listenOnLoopback } from "../peers/loopback";

/**
 * A fault-injecting HTTP proxy between Herald and its providers. Webhook accounts point their URL at
 * `${url}/hook/...` (forwarded to the webhook receiver), Bluesky accounts their service URL at `url` (every
 * `/xrpc/...` call is forwarded to the PDS; the DID document in createSession answers is rewritten to name the
 * proxy, so the repository writes come back through it too).
 *
 * For each request the test's `decide` says what happens:
 * - "pass": forward, answer with the provider's answer;
 * - "hold-before": tell the test and wait, nothing forwarded, until the test releases (forward or drop);
 * - "hold-after": forward, keep the provider's answer and wait until the test releases it (or drops it);
 * - { status }: answer that status without forwarding (a provider 5xx);
 * - "blackhole": forward, never answer (the provider accepted, the answer never comes: a timeout);
 * - { delayMs }: forward, answer after that long (a slow provider).
 * Every request is recorded with what happened to it, so a cell can prove its fault really happened.
 */

export type Target = "webhook" | "pds";

export interface ProxiedRequest {
  seq: number;
  target: Target;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json: any;
  /** A post: the webhook POST or a Bluesky createRecord. */
  isPost: boolean;
  /** What the proxy did. */
  action: string;
  /** Sent on to the provider. */
  forwarded: boolean;
  /** The provider's status, when forwarded and answered. */
  providerStatus?: number;
  /** What Herald got (0: nothing, the connection was cut or never answered). */
  answered: number;
  /** Herald closed the connection before it was answered (killed, or its timeout fired). */
  clientGone: boolean;
}

export type Decision = "pass" | "hold-before" | "hold-after" | "blackhole" | { status: number } | { delayMs: number };

export interface Held {
  request: ProxiedRequest;
  phase: "before" | "after";
  /** Forward (before) or deliver the answer (after); or drop it: the connection is cut, nothing forwarded. */
  release(how?: "forward" | "drop" | { status: number }): void;
  /** Resolves when Herald's side of the connection closes. */
  clientClosed: Promise<void>;
}

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  setDecide(fn: ((r: ProxiedRequest) => Decision) | null): void;
  /** The next hold (already waiting or future), or an error after `timeoutMs`. */
  nextHold(timeoutMs?: number): Promise<Held>;
  /** Every request still held is dropped (between runs). */
  dropAll(): void;
  stop(): Promise<void>;
}

export async function startFaultProxy(targets: { webhook: string; pds: string }): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  let decide: ((r: ProxiedRequest) => Decision) | null = null;
  const holds: Held[] = [];
  const waiters: ((h: Held) => void)[] = [];
  const open = new Set<Held>();
  let seq = 0;
  let url = "";

  const announce = (h: Held) => {
    open.add(h);
    const w = waiters.shift();
    if (w) w(h);
    else holds.push(h);
  };

  const rewrite = (req: ProxiedRequest, body: Buffer): Buffer => {
    // The session names the repository's PDS; point it back at the proxy so the writes pass here too.
    if (req.target !== "pds" || !req.path.startsWith("/xrpc/com.atproto.server.createSession")) return body;
    try {
      const json = JSON.parse(body.toString("utf8"));
      for (const s of json?.didDoc?.service ?? []) if (typeof s.serviceEndpoint === "string") s.serviceEndpoint = url;
      return Buffer.from(JSON.stringify(json));
    } catch {
      return body;
    }
  };

  const server = http.createServer(async (inReq, res) => {
    const chunks: Buffer[] = [];
    for await (const c of inReq) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const path = inReq.url ?? "/";
    const target: Target = path.startsWith("/xrpc/") ? "pds" : "webhook";
    let json: any = null;
    try {
      json = body.length ? JSON.parse(body.toString("utf8")) : null;
    } catch {}
    const record: ProxiedRequest = {
      seq: seq++,
      target,
      method: inReq.method ?? "GET",
      path,
      headers: inReq.headers,
      body,
      json,
      isPost: inReq.method === "POST" && (target === "webhook" || path.startsWith("/xrpc/com.atproto.repo.createRecord")),
      action: "pass",
      forwarded: false,
      answered: 0,
      clientGone: false,
    };
    requests.push(record);
    let answered = false;
    const clientClosed = new Promise<void>((resolve) =>
      res.on("close", () => {
        if (!answered) record.clientGone = true;
        resolve();
      }),
    );
    const answer = (status: number, headers: http.IncomingHttpHeaders, payload: Buffer) => {
      if (res.destroyed || record.clientGone) return;
      answered = true;
      record.answered = status;
      const h = { ...headers, "content-length": String(payload.length) };
      delete h["transfer-encoding"];
      delete h.connection;
      res.writeHead(status, h).end(payload);
    };
    const cut = () => {
      record.answered = 0;
      res.socket?.destroy();
    };
    const decision = decide?.(record) ?? "pass";
    record.action = typeof decision === "string" ? decision : "status" in decision ? `status-${decision.status}` : `delay-${decision.delayMs}`;
    try {
      if (typeof decision === "object" && "status" in decision)
        return answer(
          decision.status,
          { "content-type": "application/json" },
          Buffer.from(JSON.stringify({ error: "InternalServerError", message: "failing on purpose" })),
        );
      if (decision === "hold-before") {
        const how = await new Promise<"forward" | "drop" | { status: number }>((resolve) =>
          announce({ request: record, phase: "before", release: (h = "forward") => resolve(h), clientClosed }),
        );
        if (how === "drop") return cut();
        if (typeof how === "object")
          return answer(
            how.status,
            { "content-type": "application/json" },
            Buffer.from(JSON.stringify({ error: "InvalidRequest", message: "refused on purpose" })),
          );
      }
      record.forwarded = true;
      const got = await forwardBuffered(new URL(target === "webhook" ? targets.webhook : targets.pds), record);
      record.providerStatus = got.status;
      if (decision === "blackhole") return; // accepted by the provider; Herald never hears back
      if (typeof decision === "object") await new Promise((r) => setTimeout(r, decision.delayMs));
      if (decision === "hold-after") {
        const how = await new Promise<"forward" | "drop" | { status: number }>((resolve) =>
          announce({ request: record, phase: "after", release: (h = "forward") => resolve(h), clientClosed }),
        );
        if (how === "drop") return cut();
        if (typeof how === "object")
          return answer(how.status, { "content-type": "application/json" }, Buffer.from(JSON.stringify({ error: "InternalServerError" })));
      }
      answer(got.status, got.headers, rewrite(record, got.body));
    } catch (error) {
      answer(502, { "content-type": "text/plain" }, Buffer.from(String(error)));
    }
  });
  const listening = await listenOnLoopback(server);
  url = `${listening.url}`;

  const dropAll = () => {
    for (const h of [...open, ...holds]) h.release("drop");
    open.clear();
    holds.length = 0;
  };
  return {
    url,
    requests,
    setDecide(fn) {
      decide = fn;
    },
    nextHold(timeoutMs = 20_000) {
      const ready = holds.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise<Held>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(wrapped), 1);
          reject(new Error(`no request was held within ${timeoutMs} ms`));
        }, timeoutMs);
        const wrapped = (h: Held) => {
          clearTimeout(timer);
          resolve(h);
        };
        waiters.push(wrapped);
      });
    },
    dropAll,
    async stop() {
      dropAll();
      await listening.stop();
    },
  };
}
