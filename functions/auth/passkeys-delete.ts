import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, isNull, sql } from "drizzle-orm";
import { browserSessions, passkeys } from "../../db/schema";
import { audit } from "../../lib/audit";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { IdParam } from "../../lib/schemas/common";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "delete",
  path: "/auth/security/passkeys/{id}",
  operationId: "deletePasskey",
  tags: ["auth"],
  summary: "Delete one of the current user's passkeys",
  description: "Browser sessions opened with it end too.",
  request: { params: z.object({ id: IdParam.openapi({ description: "Passkey ID" }) }) },
  responses: { 204: { description: "Deleted" }, ...problems(401, 403, 404, 422) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const userId = currentUser(c).id;
  await db(c).transaction(async (tx) => {
    const deleted = await tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
      .returning({ id: passkeys.id });
    if (!deleted.length) throw notFound("passkey");
    await tx
      .update(browserSessions)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(browserSessions.passkeyId, id), isNull(browserSessions.revokedAt)));
    await audit(tx, { ...auditActor(c), action: "passkey.remove", targetType: "passkey", targetId: id });
  });
  return c.body(null, 204);
};
