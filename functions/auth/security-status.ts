import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { securityStatus } from "../../lib/auth/security-status";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { SecurityStatus } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/auth/security",
  operationId: "getSecurityStatus",
  tags: ["auth"],
  summary: "The current user's sign-in methods and passkeys",
  description: "How the caller can sign in: the methods in use and the registered passkeys, never a secret.",
  responses: { 200: jsonResponse(SecurityStatus, "Sign-in methods, passkeys and the user"), ...problems(401) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(withSchema(c, SecurityStatus, await securityStatus(db(c), currentUser(c).id)), 200);
