import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from "@simplewebauthn/server";
import { and, eq, or, sql } from "drizzle-orm";
import { passkeys, users } from "../../db/schema";
import { audit } from "../../lib/audit";
import { toUserProfile } from "../../lib/auth/profile";
import { relyingParty } from "../../lib/auth/relying-party";
import { openSession, sessionCookie } from "../../lib/auth/sessions";
import { spendSignInChallenge } from "../../lib/auth/sign-in-challenge";
import { fromBase64Url, toBase64Url } from "../../lib/crypto";
import { db, type AppContext, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { UserProfile } from "./schemas";
import { AuthenticationCredential, ChallengeIdField } from "./webauthn-credentials";
import { publicAccess } from "../../lib/http/access";

export const FinishSignInRequest = z.object({ challenge_id: ChallengeIdField, credential: AuthenticationCredential }).openapi("FinishSignInRequest");

const NOT_SIGNED_IN = "The passkey sign-in did not verify; start again.";

/** A refused sign-in by a known passkey is evidence worth keeping (outcome `denied`), then 401. */
async function refuse(c: AppContext, passkey: { id: string; userId: string }): Promise<never> {
  await audit(db(c), {
    actorUserId: passkey.userId,
    actorKind: "session",
    action: "session.sign_in",
    outcome: "denied",
    targetType: "passkey",
    targetId: passkey.id,
    requestId: c.get("requestId"),
  });
  throw new ApiError("unauthorized", { detail: NOT_SIGNED_IN });
}

export const route = createRoute({
  method: "post",
  path: "/auth/sessions/passkey/finish",
  operationId: "finishPasskeySignIn",
  tags: ["auth"],
  summary: "Finish signing in with a passkey: opens a browser session",
  description:
    "No authentication. Verifies the assertion against the spent challenge, the origin and RP ID of PUBLIC_BASE_URL and the passkey's public key; a signature counter that does not move forward → 401. Sets the `herald_session` cookie (HttpOnly, SameSite=Strict, Secure on https), which lasts 12 h idle and 7 days in all.",
  request: { body: jsonBody(FinishSignInRequest) },
  responses: {
    200: {
      ...jsonResponse(UserProfile, "The signed-in user"),
      headers: z.object({ "set-cookie": z.string().openapi({ description: "herald_session=…; HttpOnly; SameSite=Strict; Path=/" }) }),
    },
    ...problems(400, 401, 413, 422, 429),
  },
});

export const access = publicAccess("signing in is how a caller gets a session; the signed assertion is the credential");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const expectedChallenge = await spendSignInChallenge(db(c), c.env, body.challenge_id);
  if (!expectedChallenge) throw new ApiError("unauthorized", { detail: "Unknown, already used or expired challenge (they last 5 minutes); start again." });
  const [passkey] = await db(c).select().from(passkeys).where(eq(passkeys.credentialId, body.credential.id));
  if (!passkey) throw new ApiError("unauthorized", { detail: NOT_SIGNED_IN });
  const handle = body.credential.response.userHandle;
  if (handle !== undefined && handle !== toBase64Url(new TextEncoder().encode(passkey.userId))) await refuse(c, passkey);
  const rp = relyingParty(c.env, c.req.url);
  let newCounter: number;
  try {
    const result = await verifyAuthenticationResponse({
      response: body.credential as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: { id: passkey.credentialId, publicKey: fromBase64Url(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: false,
    });
    if (!result.verified) return await refuse(c, passkey);
    newCounter = result.authenticationInfo.newCounter;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    return await refuse(c, passkey);
  }
  const opened = await db(c).transaction(async (tx) => {
    // The counter moves only forward (an authenticator that keeps none always says 0); checked again here
    // because another sign-in with the same passkey may have moved it since it was read.
    const moved = await tx
      .update(passkeys)
      .set({ counter: newCounter, lastUsedAt: sql`now()` })
      .where(and(eq(passkeys.id, passkey.id), or(sql`${passkeys.counter} < ${newCounter}`, and(eq(passkeys.counter, 0), sql`${newCounter} = 0`))))
      .returning({ id: passkeys.id });
    if (!moved.length) return null;
    const session = await openSession(tx, passkey.userId, passkey.id);
    await audit(tx, {
      actorUserId: passkey.userId,
      actorKind: "session",
      action: "session.sign_in",
      targetType: "session",
      targetId: session.id,
      requestId: c.get("requestId"),
    });
    const [user] = await tx.select().from(users).where(eq(users.id, passkey.userId));
    return { session, user };
  });
  if (!opened) return await refuse(c, passkey);
  c.header("set-cookie", sessionCookie(opened.session.token, rp.secure));
  c.header("cache-control", "no-store");
  return c.json(withSchema(c, UserProfile, toUserProfile(opened.user)), 200);
};
