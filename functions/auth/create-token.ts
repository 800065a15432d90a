import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { issueToken, MAX_LIVE_TOKENS_PER_USER, MAX_TOKEN_DAYS } from "../../lib/auth/tokens";
import { signedIn } from "../../lib/http/access";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { CreatedToken } from "./schemas";

export const CreateTokenRequest = z
  .object({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_TOKEN_DAYS)
      .optional()
      .openapi({ description: `The token stops working after this many days (1–${MAX_TOKEN_DAYS}); absent: never` }),
  })
  .openapi("CreateTokenRequest");

export const route = createRoute({
  method: "post",
  path: "/auth/tokens",
  operationId: "createToken",
  tags: ["auth"],
  summary: "Issue another API token for the caller",
  description: `The token is shown once, in this response; only its hash is stored. At most ${MAX_LIVE_TOKENS_PER_USER} live tokens a person (422 beyond).`,
  request: { body: jsonBody(CreateTokenRequest) },
  responses: { 201: jsonResponse(CreatedToken, "The new token"), ...problems(400, 401, 413, 422) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name, expires_in_days } = c.req.valid("json");
  const user = currentUser(c);
  const { row, token } = await db(c).transaction(async (tx) => {
    const issued = await issueToken(tx, user.id, name, { expiresInDays: expires_in_days, enforceLimit: true });
    await audit(tx, { ...auditActor(c), action: "token.create", targetType: "token", targetId: issued.row.id });
    return issued;
  });
  return c.json(
    withSchema(c, CreatedToken, {
      id: row.id,
      name: row.name,
      token,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt?.toISOString() ?? null,
    }),
    201,
  );
};
