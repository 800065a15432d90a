import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { generateAuthenticationOptions } from "@simplewebauthn/server";
import { CHALLENGE_SECONDS } from "../../lib/auth/challenges";
import { relyingParty } from "../../lib/auth/relying-party";
import { newSignInChallenge } from "../../lib/auth/sign-in-challenge";
import type { AppEnv } from "../../lib/http/context";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { PasskeyChallenge } from "./schemas";
import { publicAccess } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/auth/sessions/passkey/start",
  operationId: "startPasskeySignIn",
  tags: ["auth"],
  summary: "Start signing in with a passkey",
  description:
    "No authentication. WebAuthn request options for a discoverable credential (no user name needed) and a challenge good for one use within 5 minutes. Stores nothing: the challenge is derived from its signed id, and spent when the sign-in finishes. Counted per client address.",
  responses: { 200: jsonResponse(PasskeyChallenge, "The challenge and the options for navigator.credentials.get()"), ...problems(400, 429) },
});

export const access = publicAccess("signing in is how a caller gets a session; counted per client address");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const rp = relyingParty(c.env, c.req.url);
  const { id, challenge } = await newSignInChallenge(c.env);
  const options = await generateAuthenticationOptions({ rpID: rp.rpID, challenge, userVerification: "preferred", timeout: CHALLENGE_SECONDS * 1000 });
  c.header("cache-control", "no-store");
  return c.json(withSchema(c, PasskeyChallenge, { challenge_id: id, options: options as unknown as Record<string, unknown> }), 200);
};
