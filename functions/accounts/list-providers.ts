import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notImplemented } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { requireRole } from "../../lib/http/workspace-guard";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { Provider } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/accounts/providers",
  tags: ["accounts"],
  summary: "List configured account providers",
  request: {
    query: z.object({ workspace_id: WorkspaceIdField.optional().openapi({ description: "Scopes operator-installed connectors to this workspace" }) }),
  },
  responses: { 200: jsonResponse(z.array(Provider), "The providers"), ...problems(401, 404, 422, 501) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id } = c.req.valid("query");
  if (workspace_id !== undefined) await requireRole(db(c), currentUser(c).id, workspace_id, "viewer");
  throw notImplemented("GET /accounts/providers", "issue 3");
};
