import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { generateRegistrationOptions } from "@simplewebauthn/server";
import { CHALLENGE_SECONDS, saveRegistrationChallenge } from "../../lib/auth/challenges";
import { relyingParty } from "../../lib/auth/relying-party";
import { MAX_PASSKEYS_PER_USER, userPasskeys } from "../../lib/auth/security-status";
import { callerRow, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { PasskeyChallenge } from "./schemas";
import { signedIn } from "../../lib/http/access";
import { requireSessionForAnother } from "./session-required";

export const PasskeyName = z.string().trim().min(1).max(100).openapi({ description: "A label for the passkey, e.g. the device" });

export const route = createRoute({
  method: "post",
  path: "/auth/security/passkeys/start",
  operationId: "startPasskeyRegistration",
  tags: ["auth"],
  summary: "Start registering a passkey for the current user",
  description: `Answers WebAuthn creation options (discoverable credential, RP ID from PUBLIC_BASE_URL) and a challenge good for one use within 5 minutes. At most ${MAX_PASSKEYS_PER_USER} passkeys a person. The first passkey may be added with an API token; any further one only from a browser session (403 session-required).`,
  request: { body: jsonBody(z.object({ name: PasskeyName.optional() }).openapi("StartPasskeyRequest")) },
  responses: {
    200: jsonResponse(PasskeyChallenge, "The challenge and the options for navigator.credentials.create()"),
    ...problems(400, 401, 403, 409, 413, 422),
  },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { name } = c.req.valid("json");
  const userId = currentUser(c).id;
  const [user, existing] = await Promise.all([callerRow(c), userPasskeys(db(c), userId)]);
  requireSessionForAnother(c, existing.length);
  if (existing.length >= MAX_PASSKEYS_PER_USER) {
    throw new ApiError("conflict", { detail: `You already have ${MAX_PASSKEYS_PER_USER} passkeys; delete one before adding another.` });
  }
  const rp = relyingParty(c.env, c.req.url);
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpID,
    userID: new TextEncoder().encode(user.id),
    userName: user.email,
    userDisplayName: user.displayName || user.email,
    timeout: CHALLENGE_SECONDS * 1000,
    attestationType: "none",
    // Discoverable, so that sign-in needs no user name; the authenticator refuses a second one for the same person.
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    excludeCredentials: existing.map((k) => ({ id: k.credentialId, transports: k.transports })),
  });
  const challengeId = await saveRegistrationChallenge(db(c), { challenge: options.challenge, userId, name });
  return c.json(withSchema(c, PasskeyChallenge, { challenge_id: challengeId, options: options as unknown as Record<string, unknown> }), 200);
};
