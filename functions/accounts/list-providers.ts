import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { PROVIDERS, readinessOf } from "../../lib/accounts/catalog";
import type { AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { Provider } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/accounts/providers",
  tags: ["accounts"],
  summary: "List configured account providers",
  description:
    "webhook, bluesky and mastodon, with what each can do here and what it cannot (readiness facts and blockers). " +
    "None needs operator configuration. There are no operator-installed connectors, so `workspace_id` (when given, the " +
    "caller must be a member) does not change the list.",
  request: {
    query: z.object({ workspace_id: WorkspaceIdField.optional().openapi({ description: "Scopes operator-installed connectors to this workspace" }) }),
  },
  responses: { 200: jsonResponse(z.array(Provider), "The providers"), ...problems(401, 404, 422) },
});

// Without workspace_id, any signed-in caller; with it, a member of that workspace.
export const access = workspaceRole("viewer", inQuery("workspace_id", { optional: true }));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const providers = await Promise.all(
    Object.values(PROVIDERS).map(async (spec) => {
      // OAuth platforms need the operator's registered app (instance settings, read in the next step).
      const configured = !spec.oauth;
      const readiness = await readinessOf(spec, configured);
      return {
        name: spec.platform,
        platform: spec.platform,
        display_name: spec.display_name,
        description: spec.description,
        auth_mode: spec.auth_mode,
        status: "available",
        configured,
        installation_id: null,
        instance_url: spec.instance_url,
        capabilities: spec.capabilities,
        connection_modes: spec.connection_modes,
        configured_connection_modes: configured ? spec.connection_modes : [],
        connection_readiness: Object.fromEntries(spec.connection_modes.map((mode) => [mode, readiness])),
        readiness,
        limits: spec.limits,
      };
    }),
  );
  return c.json(withSchemaEach(c, Provider, providers), 200);
};
