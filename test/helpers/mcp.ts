import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** An MCP client from the official SDK, connected to Herald's /mcp at `baseUrl` with a bearer token. */
export async function mcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "herald-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/**
 * A tool's answer: its structured content (the operation's JSON body, or the problem, typed as the caller expects:
 * the tests compare it with the HTTP answer), its text, and whether it is an error.
 */
export async function callTool<Body = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [first] = result.content;
  return { isError: result.isError === true, body: (result.structuredContent ?? {}) as Body, text: first?.type === "text" ? first.text : "", result };
}
