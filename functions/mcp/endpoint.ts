import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { signedIn } from "../../lib/http/access";
import { defer, type AppEnv } from "../../lib/http/context";
import { jsonBody } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { mcpServer } from "./server";
import { transportRefusal } from "./transport-refusal";

/** A JSON-RPC 2.0 message (request, notification or response): the MCP SDK reads the rest. */
const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
  })
  .openapi("McpMessage", { description: "A JSON-RPC 2.0 message of the Model Context Protocol" });

const JsonRpcAnswer = z.looseObject({ jsonrpc: z.literal("2.0") }).openapi("McpAnswer", { description: "The JSON-RPC 2.0 answer" });

export const route = createRoute({
  method: "post",
  path: "/mcp",
  operationId: "postMcpMessage",
  tags: ["mcp"],
  summary: "Model Context Protocol endpoint",
  description:
    "MCP over Streamable HTTP, stateless (no session; answers are JSON, never an event stream). Authenticated like every operation (a bearer token); " +
    "the tools (workspaces, accounts, publications, builds, analytics) each call the HTTP operation they name with the caller's credential, so the caller's roles apply " +
    "and a problem answer becomes a tool error carrying the problem's `type` slug, `status` and `detail`. A request must accept both application/json and text/event-stream. " +
    "HTTP-level refusals (a wrong Accept, a malformed message) are problem+json like every other error; JSON-RPC errors come inside a 200.",
  request: { body: jsonBody(JsonRpcMessage) },
  responses: {
    200: { content: { "application/json": { schema: JsonRpcAnswer } }, description: "The JSON-RPC answer" },
    202: { description: "A notification or response, accepted" },
    ...problems(400, 401, 406, 413, 415, 422, 429),
  },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const message = c.req.valid("json");
  const server = mcpServer(c);
  // No session id: each request stands alone, so any Worker isolate can answer it.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const answer = await transport.handleRequest(c.req.raw, { parsedBody: message });
    if (answer.status >= 400) throw await transportRefusal(answer);
    return answer;
  } finally {
    defer(c, server.close());
  }
};
