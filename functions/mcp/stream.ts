import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { signedIn } from "../../lib/http/access";
import type { AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";

export const route = createRoute({
  method: "get",
  path: "/mcp",
  operationId: "openMcpStream",
  // Served (405 problem+json, as the Streamable HTTP transport allows) but not in the document: it never succeeds,
  // and a document lists what a client can do.
  hide: true,
  tags: ["mcp"],
  summary: "MCP event stream (not offered)",
  description: "The endpoint is stateless and sends nothing unasked, so it offers no event stream: 405, as the Streamable HTTP transport allows.",
  responses: problems(401, 405),
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = () => {
  throw new ApiError("method-not-allowed", {
    detail: "This MCP endpoint is stateless: it offers no event stream. POST messages to /mcp.",
    headers: { allow: "POST" },
  });
};
