import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { liveTokensOf } from "../../lib/auth/tokens";
import { signedIn } from "../../lib/http/access";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchemaEach } from "../../lib/http/schema-ref";
import { ApiToken } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/auth/tokens",
  operationId: "listTokens",
  tags: ["auth"],
  summary: "The caller's live API tokens, oldest first",
  description: "Neither revoked nor expired ones; never the tokens themselves, which were shown once at creation.",
  responses: { 200: jsonResponse(z.array(ApiToken), "The caller's tokens"), ...problems(401) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const rows = await liveTokensOf(db(c), currentUser(c).id);
  return c.json(
    withSchemaEach(
      c,
      ApiToken,
      rows.map((r) => ({
        id: r.id,
        name: r.name,
        created_at: r.createdAt.toISOString(),
        last_used_at: r.lastUsedAt?.toISOString() ?? null,
        expires_at: r.expiresAt?.toISOString() ?? null,
      })),
    ),
    200,
  );
};
