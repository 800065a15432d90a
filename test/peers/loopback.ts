import http, { type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A test server listening on a free loopback port. `stop` also ends the connections still open (a request held or
 * left hanging on purpose), which server.close alone would wait for.
 */
export async function listenOnLoopback(server: Server): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a proxy passes on, buffered. */
export interface BufferedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Sends a buffered request to `base` (the Host and length its own) and answers the whole answer, buffered. */
export function forwardBuffered(base: URL, r: BufferedRequest): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...r.headers, host: base.host, "content-length": String(r.body.length) };
    delete headers["transfer-encoding"];
    delete headers.connection;
    const out = http.request({ host: base.hostname, port: base.port, method: r.method, path: r.path, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (c: Buffer) => chunks.push(c));
      answer.on("end", () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
      answer.on("error", reject);
    });
    out.on("error", reject);
    out.end(r.body);
  });
}
