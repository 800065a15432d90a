import type { ExecutionContext } from "hono";
import type { Env } from "../../lib/env";

/** What serves an operation's request: a group Worker's service binding, or the app of every group in this isolate. */
export type OperationFetch = (request: Request, env: Env, ctx?: ExecutionContext) => Response | Promise<Response>;

let local: OperationFetch | undefined;

/**
 * The app that serves every group in this isolate (functions/all-groups.ts: the tests and the one-Worker `npm start`)
 * registers itself here, so MCP tools reach the operations without service bindings. A Worker of the MCP group alone
 * has none registered and goes through its GROUP_* bindings (functions/mcp/call-operation.ts).
 */
export function serveOperationsInProcess(fetch: OperationFetch): void {
  local = fetch;
}

export const inProcessOperations = (): OperationFetch | undefined => local;
