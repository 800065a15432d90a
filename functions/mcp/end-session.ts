import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { signedIn } from "../../lib/http/access";
import type { AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";

export const route = createRoute({
  method: "delete",
  path: "/mcp",
  operationId: "endMcpSession",
  // Served (405 problem+json, as the Streamable HTTP transport allows) but not in the document: it never succeeds,
  // and a document lists what a client can do.
  hide: true,
  tags: ["mcp"],
  summary: "End an MCP session (there are none)",
  description: "The endpoint is stateless: there is no session to end, so 405, as the Streamable HTTP transport allows.",
  responses: problems(401, 405),
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = () => {
  throw new ApiError("method-not-allowed", { detail: "This MCP endpoint is stateless: there is no session to end.", headers: { allow: "POST" } });
};
