import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { PROVIDERS, type ProviderSpec } from "../../lib/accounts/catalog";
import { readinessOf } from "../../lib/accounts/readiness";
import { db, type AppEnv } from "../../lib/http/context";
import { configuredPlatforms } from "../../lib/accounts/oauth-config";
import { isOAuthPlatform } from "../../lib/providers/oauth/platforms";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { WorkspaceIdField } from "../../lib/schemas/common";
import { Provider } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";
import { mediaMaxBytes } from "../../lib/media/limits";
import type { Env } from "../../lib/env";

export const route = createRoute({
  method: "get",
  path: "/accounts/providers",
  operationId: "listAccountProviders",
  tags: ["accounts"],
  summary: "List configured account providers",
  description:
    "Every platform (webhook, bluesky, mastodon, x, linkedin, threads, facebook, instagram, tiktok, youtube, discord), with " +
    "its documented limits (`limits`: text length, media count and kinds, video length and size, image size, threads, reposts, " +
    "analytics; what exceeds them is refused with a 422 when a publication is created) and what it can do " +
    "here and what it cannot (readiness facts and blockers). An OAuth platform is `configured` only when the operator has " +
    "set its client id and secret (instance settings `<platform>_client_id`, `<platform>_client_secret`); webhook, bluesky, " +
    "mastodon and discord need no configuration. A platform whose adapter is not built yet has readiness state " +
    "`not_implemented`. There are no operator-installed connectors, so `workspace_id` (when given, the caller must be a " +
    "member) does not change the list.",
  request: {
    query: z.object({ workspace_id: WorkspaceIdField.optional().openapi({ description: "Scopes operator-installed connectors to this workspace" }) }),
  },
  responses: { 200: jsonResponse(z.array(Provider), "The providers"), ...problems(401, 404, 422) },
});

// Without workspace_id, any signed-in caller; with it, a member of that workspace.
export const access = workspaceRole("viewer", inQuery("workspace_id", { optional: true }));

/** A webhook receiver takes whatever Herald stores, so its media bounds are this instance's upload limit. */
function limitsOf(spec: ProviderSpec, env: Pick<Env, "MEDIA_MAX_BYTES">) {
  if (spec.platform !== "webhook") return spec.limits;
  const cap = mediaMaxBytes(env);
  return { ...spec.limits, video_max_bytes: cap, image_max_bytes: cap };
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  // Read on every call (live settings): an operator's new client id and secret show at once.
  const oauthReady = await configuredPlatforms(c.env, db(c));
  const providers = await Promise.all(
    Object.values(PROVIDERS).map(async (spec) => {
      // OAuth platforms need the operator's registered app; the others need no configuration.
      const configured = !spec.oauth || (isOAuthPlatform(spec.platform) && oauthReady.has(spec.platform));
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
        limits: limitsOf(spec, c.env),
      };
    }),
  );
  return c.json(withSchemaEach(c, Provider, providers), 200);
};
