import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { generateAuthenticationOptions } from "@simplewebauthn/server";
import { CHALLENGE_SECONDS, saveChallenge } from "../../lib/auth/challenges";
import { relyingParty } from "../../lib/auth/relying-party";
import { db, type AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { PasskeyChallenge } from "./schemas";
import { publicAccess } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/auth/sessions/passkey/start",
  tags: ["auth"],
  summary: "Start signing in with a passkey",
  description:
    "No authentication. WebAuthn request options for a discoverable credential (no user name needed) and a challenge good for one use within 5 minutes.",
  responses: { 200: jsonResponse(PasskeyChallenge, "The challenge and the options for navigator.credentials.get()"), ...problems(400, 429) },
});

export const access = publicAccess("signing in is how a caller gets a session; counted per client address");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const rp = relyingParty(c.env, c.req.url);
  const options = await generateAuthenticationOptions({ rpID: rp.rpID, userVerification: "preferred", timeout: CHALLENGE_SECONDS * 1000 });
  const challengeId = await saveChallenge(db(c), { purpose: "sign_in", challenge: options.challenge });
  return c.json(withSchema(c, PasskeyChallenge, { challenge_id: challengeId, options: options as unknown as Record<string, unknown> }), 200);
};
