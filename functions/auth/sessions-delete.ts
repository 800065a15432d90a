import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { relyingParty } from "../../lib/auth/relying-party";
import { revokeSession, sessionCookie } from "../../lib/auth/sessions";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { problems } from "../../lib/http/problem-schema";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "delete",
  path: "/auth/sessions/current",
  operationId: "signOut",
  tags: ["auth"],
  summary: "Sign out: end this browser session",
  description: "The session is revoked and its cookie cleared. A request authenticated with a bearer token has no session to end (400).",
  responses: { 204: { description: "Signed out" }, ...problems(400, 401, 403) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const sessionId = currentUser(c).sessionId;
  if (!sessionId)
    throw new ApiError("bad-request", {
      detail: "This request was authenticated with a bearer token, not a browser session; revoke tokens with DELETE /auth/tokens/{id}.",
    });
  await db(c).transaction(async (tx) => {
    if (await revokeSession(tx, sessionId)) await audit(tx, { ...auditActor(c), action: "session.sign_out", targetType: "session", targetId: sessionId });
  });
  c.header("set-cookie", sessionCookie(null, relyingParty(c.env, c.req.url).secure));
  return c.body(null, 204);
};
