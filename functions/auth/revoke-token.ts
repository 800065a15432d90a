import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, isNull, sql } from "drizzle-orm";
import { apiTokens } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "delete",
  path: "/auth/tokens/{id}",
  operationId: "revokeToken",
  tags: ["auth"],
  summary: "Revoke one of the caller's tokens",
  description: "Revoking the token used for this very request is allowed; it stops working at once.",
  request: { params: z.object({ id: z.string().max(100) }) },
  responses: { 204: { description: "Revoked" }, ...problems(401, 404, 422) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const user = currentUser(c);
  await db(c).transaction(async (tx) => {
    const revoked = await tx
      .update(apiTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, user.id), isNull(apiTokens.revokedAt)))
      .returning({ id: apiTokens.id });
    if (revoked.length === 0) throw notFound("token");
    await audit(tx, { ...auditActor(c), action: "token.revoke", targetType: "token", targetId: id });
  });
  return c.body(null, 204);
};
