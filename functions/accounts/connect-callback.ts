import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { PLATFORMS } from "../../db/schema/accounts";
import { completeConnection } from "../../lib/accounts/oauth-connect";
import { publicAccess } from "../../lib/http/access";
import { db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";

const Param = (description: string) => z.string().max(2000).optional().openapi({ description });

export const route = createRoute({
  method: "get",
  path: "/accounts/connect/{platform}/callback",
  operationId: "finishAccountConnection",
  tags: ["accounts"],
  summary: "OAuth 2.0 callback: the platform sends the browser here",
  description:
    "Public: the browser arrives from the platform without a token; the single-use `state` from POST " +
    "/accounts/connect/{platform}/start authenticates it (bound to the user and workspace that started, 10 minutes). " +
    "Consumes the state (of two callbacks with one state exactly one proceeds), exchanges the code for tokens (stored " +
    "encrypted, never returned), reads the account's profile and stores the account (connecting an account the workspace " +
    "already has replaces its tokens and makes it active again). Then 302 to the start's `redirect_uri` (default " +
    "PUBLIC_BASE_URL) with `?account_id=`, or with `?error=` and nothing stored: `state_expired`, `platform_mismatch`, " +
    "the platform's own error (e.g. `access_denied`), `invalid_request`, `forbidden` (the user is no longer an admin of the " +
    "workspace), `provider_not_configured`, `token_exchange_refused`, `platform_unavailable`, `profile_unavailable`, " +
    "`plan_limit_reached`. An unknown or already used state has no redirect target: 400.",
  request: {
    params: z.object({ platform: IdParam.openapi({ example: "x" }) }),
    query: z.object({
      code: Param("The authorization code"),
      state: Param("The state from start"),
      error: Param("The platform's error (RFC 6749 §4.1.2.1), when the user refused"),
      error_description: Param("The platform's description of its error (not used)"),
    }),
  },
  responses: {
    302: { description: "To redirect_uri with `account_id` or `error`", headers: z.object({ location: z.string() }) },
    ...problems(400, 404, 422),
  },
});

export const access = publicAccess("the platform sends the user's browser here; the single-use state from start authenticates it");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { platform } = c.req.valid("param");
  if (!(PLATFORMS as readonly string[]).includes(platform)) throw new ApiError("not-found", { detail: "No such platform." });
  const query = c.req.valid("query");
  const outcome = await completeConnection(db(c), c.env, { platform, ...query, requestUrl: c.req.url });
  if ("problem" in outcome)
    throw new ApiError("bad-request", { detail: "The state is unknown or was already used; start the connection again. Nothing was stored." });
  return c.redirect(outcome.location, 302);
};
