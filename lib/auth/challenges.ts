import { and, eq, isNull, sql } from "drizzle-orm";
import { webauthnChallenges } from "../../db/schema";
import type { Queryable } from "../db/client";
import { newId } from "../ids";

/** CONTRACT §3: a WebAuthn challenge is good for one use within 5 minutes. */
export const CHALLENGE_SECONDS = 300;

export type ChallengePurpose = "register" | "sign_in";

export async function saveChallenge(q: Queryable, values: { purpose: ChallengePurpose; challenge: string; userId?: string; name?: string }): Promise<string> {
  const id = newId("chl");
  await q.insert(webauthnChallenges).values({
    id,
    purpose: values.purpose,
    challenge: values.challenge,
    userId: values.userId ?? null,
    name: values.name ?? null,
    expiresAt: sql`now() + make_interval(secs => ${CHALLENGE_SECONDS})`,
  });
  return id;
}

/**
 * Spend a challenge: it answers once, for its purpose (and, for a registration, its user), before it
 * expires. Spent whether or not the response then verifies, so a captured response cannot be tried again.
 */
export async function spendChallenge(q: Queryable, id: string, purpose: ChallengePurpose, userId?: string) {
  const [row] = await q
    .update(webauthnChallenges)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(webauthnChallenges.id, id),
        eq(webauthnChallenges.purpose, purpose),
        userId === undefined ? isNull(webauthnChallenges.userId) : eq(webauthnChallenges.userId, userId),
        isNull(webauthnChallenges.usedAt),
        sql`${webauthnChallenges.expiresAt} > now()`,
      ),
    )
    .returning({ challenge: webauthnChallenges.challenge, name: webauthnChallenges.name });
  return row;
}
