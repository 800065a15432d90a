import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { startConnection } from "../../lib/accounts/oauth-connect";
import { inBody, workspaceRole } from "../../lib/http/access";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { IdParam } from "../../lib/schemas/common";
import { ConnectStartRequest, ConnectStarted } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/accounts/connect/{platform}/start",
  operationId: "startAccountConnection",
  tags: ["accounts"],
  summary: "Start connecting an account through OAuth 2.0",
  description:
    "Needs the admin role. Answers the platform's authorization URL to send the browser to (authorization code, PKCE S256 " +
    "where the platform supports it) and the `state` it carries: single use, valid 10 minutes, bound to the caller and the " +
    "workspace. The platform then sends the browser to GET /accounts/connect/{platform}/callback, which stores the account " +
    "and redirects to `redirect_uri` (on PUBLIC_BASE_URL's origin, else 422; default PUBLIC_BASE_URL) with `?account_id=` or " +
    "`?error=`. The app registered with the platform must list <PUBLIC_BASE_URL>/accounts/connect/{platform}/callback as its " +
    "redirect URL. 404: no such platform; 422: a platform connected with POST /accounts (webhook, bluesky, mastodon, discord); " +
    "501: a platform whose adapter is not built yet; 409 `provider-not-configured`: the operator has not set the platform's " +
    "client id and secret.",
  request: {
    params: z.object({ platform: IdParam.openapi({ description: "x, linkedin, threads, facebook, instagram, tiktok or youtube", example: "x" }) }),
    body: jsonBody(ConnectStartRequest),
  },
  responses: { 201: jsonResponse(ConnectStarted, "Where to send the browser"), ...problems(400, 401, 403, 404, 409, 413, 422, 429, 501) },
});

export const access = workspaceRole("admin", inBody());

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const started = await startConnection(db(c), c.env, {
    platform: c.req.valid("param").platform,
    workspaceId: body.workspace_id,
    userId: currentUser(c).id,
    redirectUri: body.redirect_uri,
    requestUrl: c.req.url,
  });
  return c.json(withSchema(c, ConnectStarted, started), 201);
};
