import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { accountIdsOf } from "../../lib/voice/store";
import { toVoiceProfile } from "./present";
import { VoiceProfile, VoiceProfileIdParams } from "./schemas";
import { resourceInPath, workspaceRole } from "../../lib/http/access";
import { scopedResource } from "../../lib/http/enforce-access";

export const route = createRoute({
  method: "get",
  path: "/voice-profiles/{id}",
  operationId: "getVoiceProfile",
  tags: ["voice-profiles"],
  summary: "Get a Voice Profile",
  description:
    "One voice profile of a workspace the caller belongs to: its definition, the accounts it is assigned to and its revision, for builds to write in. 404 for a profile of another workspace.",
  request: { params: VoiceProfileIdParams },
  responses: { 200: jsonResponse(VoiceProfile, "The profile"), ...problems(401, 404, 422) },
});

export const access = workspaceRole("viewer", resourceInPath("voice-profile"));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const database = db(c);
  const profile = scopedResource(c, "voice-profile");
  const accounts = await accountIdsOf(database, [profile.id]);
  return c.json(withSchema(c, VoiceProfile, toVoiceProfile(profile, accounts.get(profile.id) ?? [])), 200);
};
