import type { RouteConfig } from "@hono/zod-openapi";
import { route as analyticsOverview } from "../analytics/overview";
import { route as listAccounts } from "../accounts/list";
import { route as commitBuild } from "../publication-builds/commit";
import { route as createBuild } from "../publication-builds/create";
import { route as getBuild } from "../publication-builds/get-build";
import { route as cancelPublication } from "../publications/cancel";
import { route as createPublication } from "../publications/create";
import { route as getPublication } from "../publications/get";
import { route as listPublications } from "../publications/list";
import { route as publishNow } from "../publications/publish-now";
import { route as updatePublication } from "../publications/update";
import { route as listWorkspaces } from "../workspaces/list";

/** An MCP tool: one HTTP operation, named by its operationId, described, validated and answered by the operation itself. */
export interface Tool {
  name: string;
  route: RouteConfig;
}

/** The tool of `route`: its name is the operation's own id, so MCP, OpenAPI and the typed client say the same. */
const tool = (route: RouteConfig & { operationId: string }): Tool => ({ name: route.operationId, route });

/**
 * The MCP endpoint's tools (CONTRACT §9). Each wraps the route it imports: its input schema is built from the route's
 * own request schemas (functions/mcp/tool-input.ts) and a call goes to the operation (functions/mcp/call-operation.ts).
 * Only the `route` objects are used here; the handlers run in their groups' Workers.
 */
export const TOOLS: readonly Tool[] = [
  listWorkspaces,
  listAccounts,
  listPublications,
  getPublication,
  createPublication,
  updatePublication,
  publishNow,
  cancelPublication,
  createBuild,
  getBuild,
  commitBuild,
  analyticsOverview,
].map(tool);
