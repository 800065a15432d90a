import http from "node:http";
import type { AddressInfo } from "node:net";
import { DISCARD_MAX_BYTES } from "../../lib/http/body-meter";

/**
 * What stands on PORT under `npm start`, in front of wrangler dev: it passes every request on unchanged, except that
 * `cf-connecting-ip` becomes the address of the socket the request came in on. On Cloudflare the edge does this (a
 * value the client sent is replaced); Miniflare keeps a client-sent one, so without this relay any local process
 * could pick its own address and a budget per client address (lib/http/rate-limit.ts) would count nothing.
 * Bodies stream both ways: nothing is buffered, so uploads and long answers cost what they cost without it.
 */
export async function startClientAddressRelay(opts: { port: number; target: { host: string; port: number } }): Promise<{
  port: number;
  close(): Promise<void>;
}> {
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const headers: http.OutgoingHttpHeaders = { ...req.headers, "cf-connecting-ip": peerAddress(req) };
    let answered = false;
    // Answered before the client sent all its body: what is left is read and dropped (bounded), not left on the wire,
    // so the client reads the answer and may send its next request on the same connection.
    let dropping = false;
    const dropRest = () => {
      if (dropping || req.complete) return;
      dropping = true;
      req.unpipe(upstream);
      upstream.destroy();
      let dropped = 0;
      req.on("data", (chunk: Buffer) => {
        dropped += chunk.length;
        if (dropped > DISCARD_MAX_BYTES) req.socket.destroy();
      });
      req.resume();
    };
    const upstream = http.request({ host: opts.target.host, port: opts.target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      answered = true;
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.rawHeaders));
      answer.pipe(res);
      answer.on("end", dropRest);
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", () => {
      // Answered before the body was all sent (a 401 needs none of it; the Workers then drain it: lib/http/body-gate.ts),
      // writing the rest may still fail: the answer stands.
      if (answered) return dropRest();
      // The Workers are not listening (yet, or any more): say so the way every other error is said.
      res.writeHead(502, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ type: "about:blank", title: "Bad Gateway", status: 502, detail: "The Workers behind npm start did not answer." }));
    });
    req.pipe(upstream);
    req.on("error", () => upstream.destroy());
  });
  // No upgrade handler: nothing behind this relay speaks WebSocket (the database relay has its own port).
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) describe the connection to wrangler dev, not the client's: Node sets its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"]);

function endToEnd(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) kept.push(raw[i], raw[i + 1]);
  return kept;
}

/** The socket's peer, IPv4 written as IPv4 (Node reports `::ffff:127.0.0.1` on a dual-stack socket). */
function peerAddress(req: http.IncomingMessage): string {
  const address = req.socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
}
