import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { accountIdsOf } from "../../lib/voice/store";
import { loadProfileFor, toVoiceProfile } from "./present";
import { VoiceProfile, VoiceProfileIdParams } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/voice-profiles/{id}",
  tags: ["voice-profiles"],
  summary: "Get a Voice Profile",
  request: { params: VoiceProfileIdParams },
  responses: { 200: jsonResponse(VoiceProfile, "The profile"), ...problems(401, 404, 422) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const database = db(c);
  const { profile } = await loadProfileFor(database, currentUser(c).id, id, "viewer");
  const accounts = await accountIdsOf(database, [profile.id]);
  return c.json(withSchema(c, VoiceProfile, toVoiceProfile(profile, accounts.get(profile.id) ?? [])), 200);
};
