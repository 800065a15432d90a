import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import type { AppEnv } from "../../lib/http/context";
import { callOperation } from "./call-operation";
import { inputJsonSchema, operationCall, toolInput, type ToolInput } from "./tool-input";
import { toolResult } from "./tool-result";
import { TOOLS, type Tool } from "./tools";

// Pure data from the routes' schemas: made once per isolate.
let described: { tool: Tool; input: ToolInput; listed: McpTool }[] | undefined;
function tools() {
  described ??= TOOLS.map((tool) => {
    const input = toolInput(tool.route);
    const description = [tool.route.summary, tool.route.description].filter(Boolean).join(". ");
    const listed: McpTool = {
      name: tool.name,
      title: tool.route.summary,
      description: `${description} (${tool.route.method.toUpperCase()} ${tool.route.path})`,
      inputSchema: inputJsonSchema(input),
      annotations: { readOnlyHint: tool.route.method === "get", idempotentHint: tool.route.method === "get" || tool.route.method === "put" },
    };
    return { tool, input, listed };
  });
  return described;
}

const INSTRUCTIONS =
  "Herald publishes to social networks. Find a workspace (listWorkspaces) and its connected accounts (listAccounts); " +
  "createPublication makes a draft for chosen accounts; publishPublicationNow sends it (give its current revision as expected_revision " +
  "and an idempotency_key, reused on a retry so it publishes once); follow each rendition with getPublication. " +
  "Every tool is the HTTP operation it names (its OpenAPI operationId): a refusal is a tool error carrying the problem's type, status and detail.";

/**
 * The MCP server of one request (stateless: nothing outlives it). Listing tools answers from the routes; calling one
 * calls its operation with this request's credential, so every answer is the operation's own.
 */
export function mcpServer(c: Context<AppEnv>): Server {
  const server = new Server({ name: "herald", version: "1.0.0" }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools().map((t) => t.listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const found = tools().find((t) => t.tool.name === request.params.name);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const call = operationCall(found.tool.route, found.input, request.params.arguments ?? {});
    return toolResult(await callOperation(c, call));
  });
  return server;
}
