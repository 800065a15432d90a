import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { toUserProfile } from "../../lib/auth/profile";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { UserProfile } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/auth/me",
  tags: ["auth"],
  summary: "The signed-in user's profile",
  responses: { 200: jsonResponse(UserProfile, "The caller"), ...problems(401) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  // Authentication read the whole row in its one statement (lib/auth/caller.ts).
  const user = c.get("userRow") ?? (await db(c).select().from(users).where(eq(users.id, currentUser(c).id)))[0];
  return c.json(withSchema(c, UserProfile, toUserProfile(user)), 200);
};
