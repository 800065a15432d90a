import http from "node:http";
import { Readable } from "node:stream";
import gateway from "../../functions/all-groups";
import type { Env } from "../../lib/env";
import { listenOnLoopback } from "../peers/loopback";

/**
 * The gateway over real HTTP on a free 127.0.0.1 port, for tests where something outside the process
 * model must fetch from Herald (an adapter downloading a signed media URL, a webhook receiver). Each
 * request becomes one `gateway.fetch(request, env)` call, where `env` is the given one with
 * PUBLIC_BASE_URL set to this server's address; use the returned `env` for everything else in the test
 * too, so the URLs Herald hands out point here.
 */
export interface ServedGateway {
  url: string;
  env: Env;
  stop(): Promise<void>;
}

export async function serveGateway(base: Env): Promise<ServedGateway> {
  let env = base;
  const server = http.createServer(async (req, res) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(new URL(req.url ?? "/", env.PUBLIC_BASE_URL), {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
        // Node's fetch needs this for a streamed request body.
        ...(hasBody ? { duplex: "half" } : {}),
      } as RequestInit);
      const response = await gateway.fetch(request, env);
      res.writeHead(response.status, [...response.headers].flat());
      if (response.body && req.method !== "HEAD") {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      }
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`serve-gateway: ${String((err as Error)?.stack ?? err)}`);
    }
  });
  const listening = await listenOnLoopback(server);
  const url = `${listening.url}`;
  env = { ...base, PUBLIC_BASE_URL: url };
  return {
    url,
    env,
    async stop() {
      await listening.stop();
    },
  };
}
