import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { verifyRegistrationResponse, type RegistrationResponseJSON } from "@simplewebauthn/server";
import { count, eq } from "drizzle-orm";
import { passkeys, users } from "../../db/schema";
import { audit } from "../../lib/audit";
import { spendRegistrationChallenge } from "../../lib/auth/challenges";
import { relyingParty } from "../../lib/auth/relying-party";
import { MAX_PASSKEYS_PER_USER, securityStatus } from "../../lib/auth/security-status";
import { toBase64Url } from "../../lib/crypto";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { PasskeyName } from "./passkeys-start";
import { SecurityStatus } from "./schemas";
import { ChallengeIdField, RegistrationCredential } from "./webauthn-credentials";
import { signedIn } from "../../lib/http/access";
import { requireSessionForAnother } from "./session-required";

export const FinishPasskeyRequest = z
  .object({ challenge_id: ChallengeIdField, credential: RegistrationCredential, name: PasskeyName.optional() })
  .openapi("FinishPasskeyRequest");

const refused = (location: string, message: string) =>
  new ApiError("validation-error", { detail: `The passkey was not registered: ${message}`, errors: [{ location, message }] });

export const route = createRoute({
  method: "post",
  path: "/auth/security/passkeys/finish",
  operationId: "finishPasskeyRegistration",
  tags: ["auth"],
  summary: "Finish passkey registration for the current user",
  description:
    "Verifies the browser's attestation against the challenge (spent by this call, whatever its outcome), the origin and the RP ID of PUBLIC_BASE_URL, and stores the passkey. Any mismatch → 422 and nothing stored. A person who already has a passkey adds another only from a browser session (403 session-required).",
  request: { body: jsonBody(FinishPasskeyRequest) },
  responses: { 200: jsonResponse(SecurityStatus, "The caller's security status, with the new passkey"), ...problems(400, 401, 403, 409, 413, 422) },
});

export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const userId = currentUser(c).id;
  const challenge = await spendRegistrationChallenge(db(c), body.challenge_id, userId);
  if (!challenge) throw refused("body.challenge_id", "Unknown, already used or expired challenge (they last 5 minutes); start again");
  const rp = relyingParty(c.env, c.req.url);
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: body.credential as RegistrationResponseJSON,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
  } catch (err) {
    throw refused("body.credential", (err as Error).message);
  }
  if (!verified.verified) throw refused("body.credential", "The attestation did not verify");
  const { credential } = verified.registrationInfo;
  const id = newId("pky");
  await db(c).transaction(async (tx) => {
    // The user's row locked: two registrations at once are counted one after the other (the first-passkey rule).
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [{ n }] = await tx.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
    requireSessionForAnother(c, n);
    if (n >= MAX_PASSKEYS_PER_USER)
      throw new ApiError("conflict", { detail: `You already have ${MAX_PASSKEYS_PER_USER} passkeys; delete one before adding another.` });
    const [row] = await tx
      .insert(passkeys)
      .values({
        id,
        userId,
        name: body.name ?? challenge.name ?? "Passkey",
        credentialId: credential.id,
        publicKey: toBase64Url(credential.publicKey),
        counter: credential.counter,
        transports: (credential.transports ?? []).slice(0, 10),
      })
      .onConflictDoNothing()
      .returning({ id: passkeys.id });
    if (!row) throw new ApiError("conflict", { detail: "This passkey is already registered." });
    await audit(tx, { ...auditActor(c), action: "passkey.add", targetType: "passkey", targetId: id });
  });
  return c.json(withSchema(c, SecurityStatus, await securityStatus(db(c), userId)), 200);
};
