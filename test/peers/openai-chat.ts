import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for an OpenAI-compatible chat completions API (no language model runs here). It answers
 * `POST /v1/chat/completions` as that API documents: `{id, object: "chat.completion", created, model,
 * choices: [{index, message: {role: "assistant", content}, finish_reason}], usage: {prompt_tokens,
 * completion_tokens, total_tokens}}`, and 401 without the bearer key. Each test sets what it answers.
 */
export interface ChatPeer {
  url: string;
  key: string;
  requests: { model: string; messages: { role: string; content: string }[]; response_format?: unknown }[];
  /** The assistant message content to answer with (a JSON string normally), or an error status. */
  answer: { content: string } | { status: number };
  stop(): Promise<void>;
}

export async function startChatPeer(): Promise<ChatPeer> {
  const peer = { key: "sk-test-standin-key", requests: [], answer: { content: "{}" } } as unknown as ChatPeer;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
      if (req.headers.authorization !== `Bearer ${peer.key}`) {
        res.writeHead(401, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }));
      }
      const body = JSON.parse(raw);
      peer.requests.push(body);
      if ("status" in peer.answer) {
        res.writeHead(peer.answer.status, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { message: "stand-in error", type: "server_error" } }));
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-standin",
          object: "chat.completion",
          created: 1_700_000_000,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: peer.answer.content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  peer.stop = () => new Promise<void>((r) => server.close(() => r()));
  return peer;
}
