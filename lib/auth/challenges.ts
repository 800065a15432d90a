import { and, eq, isNull, sql } from "drizzle-orm";
import { webauthnChallenges } from "../../db/schema";
import type { Queryable } from "../db/client";
import { newId } from "../ids";

/** CONTRACT §3: a WebAuthn challenge is good for one use within 5 minutes. */
export const CHALLENGE_SECONDS = 300;

/**
 * A passkey registration's challenge, stored when it starts. (A sign-in's is signed instead and stored only when
 * it is spent: lib/auth/sign-in-challenge.ts.)
 */
export async function saveRegistrationChallenge(q: Queryable, values: { challenge: string; userId: string; name?: string }): Promise<string> {
  const id = newId("chl");
  await q.insert(webauthnChallenges).values({
    id,
    purpose: "register",
    challenge: values.challenge,
    userId: values.userId,
    name: values.name ?? null,
    expiresAt: sql`now() + make_interval(secs => ${CHALLENGE_SECONDS})`,
  });
  return id;
}

/**
 * Spend a registration's challenge: it answers once, for the user it was made for, before it expires. Spent whether
 * or not the response then verifies, so a captured response cannot be tried again.
 */
export async function spendRegistrationChallenge(q: Queryable, id: string, userId: string) {
  const [row] = await q
    .update(webauthnChallenges)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(webauthnChallenges.id, id),
        eq(webauthnChallenges.purpose, "register"),
        eq(webauthnChallenges.userId, userId),
        isNull(webauthnChallenges.usedAt),
        sql`${webauthnChallenges.expiresAt} > now()`,
      ),
    )
    .returning({ challenge: webauthnChallenges.challenge, name: webauthnChallenges.name });
  return row;
}
