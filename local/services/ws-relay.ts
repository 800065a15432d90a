import http from "node:http";
import net from "node:net";
import { WebSocketServer } from "ws";

/**
 * The Neon driver speaks the Postgres wire protocol inside WebSocket frames. This relay unwraps them
 * onto a TCP connection so the same driver (in Node and in workerd) reaches a plain local Postgres.
 * Only the configured address may be reached: it is not an open proxy. A web page the user happens to
 * visit could still open a WebSocket to 127.0.0.1; browsers always say where it comes from (`Origin`),
 * the database drivers never do, so a request with an Origin that is not in `origins` is refused.
 */
export async function startWsRelay(opts: { port: number; allowed: string[]; origins?: string[] }): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(426).end("WebSocket only");
  });
  const origins = new Set((opts.origins ?? []).map((o) => new URL(o).origin));
  const wss = new WebSocketServer({
    server,
    path: "/v2",
    verifyClient: ({ req }: { req: http.IncomingMessage }) => req.headers.origin === undefined || origins.has(req.headers.origin),
  });
  wss.on("connection", (socket, req) => {
    const address = new URL(req.url ?? "", "http://relay").searchParams.get("address") ?? "";
    if (!opts.allowed.includes(address)) {
      socket.close(1008, "address not allowed");
      return;
    }
    const [host, port] = [address.slice(0, address.lastIndexOf(":")), Number(address.slice(address.lastIndexOf(":") + 1))];
    const tcp = net.connect({ host, port });
    const pending: Buffer[] = [];
    let connected = false;
    tcp.on("connect", () => {
      connected = true;
      for (const chunk of pending) tcp.write(chunk);
      pending.length = 0;
    });
    tcp.on("data", (data) => socket.readyState === socket.OPEN && socket.send(data));
    tcp.on("close", () => socket.close());
    tcp.on("error", () => socket.close());
    socket.on("message", (data: Buffer) => (connected ? tcp.write(data) : pending.push(data)));
    socket.on("close", () => tcp.destroy());
    socket.on("error", () => tcp.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
        // Connections still in their HTTP phase (an upgrade under way, an idle keep-alive) must not hold the stop.
        server.closeAllConnections();
      }),
  };
}
