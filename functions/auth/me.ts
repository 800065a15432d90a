import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { toUserProfile } from "../../lib/auth/profile";
import { callerRow, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { UserProfile } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/auth/me",
  operationId: "getMe",
  tags: ["auth"],
  summary: "The signed-in user's profile",
  description:
    "The person the bearer token or browser session belongs to: id, e-mail address, display name, whether they administer the instance, and their legal acceptances.",
  responses: { 200: jsonResponse(UserProfile, "The caller"), ...problems(401) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  return c.json(withSchema(c, UserProfile, toUserProfile(await callerRow(c))), 200);
};
