import { sql } from "drizzle-orm";
import { webauthnChallenges } from "../../db/schema";
import { toBase64Url } from "../crypto";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { randomText } from "../ids";
import { CHALLENGE_SECONDS } from "./challenges";

/**
 * The passkey sign-in challenge, stateless until it is spent: anyone may ask for one, so asking must write
 * nothing. Its id says when it expires and carries a random nonce; the challenge the authenticator signs is
 * HMAC-SHA256 of the id under a key derived from INSTANCE_SECRET_KEY (its own label), so only this instance
 * can say which challenge an id stands for. Finishing spends the id (a row, inserted once), so it answers once.
 */
const ID_SHAPE = /^sic_(\d{10})_([a-z0-9]{24})$/;
const encoder = new TextEncoder();

async function signingKey(env: Pick<Env, "INSTANCE_SECRET_KEY">): Promise<CryptoKey> {
  const secret = env.INSTANCE_SECRET_KEY;
  if (!secret || secret.length < 16) throw new Error("INSTANCE_SECRET_KEY is missing or too short");
  const material = await crypto.subtle.digest("SHA-256", encoder.encode(`herald-sign-in-challenge-v1:${secret}`));
  return crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function challengeFor(env: Pick<Env, "INSTANCE_SECRET_KEY">, id: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(env), encoder.encode(`sign-in:${id}`)));
}

/** A new challenge: its id (for the client to send back) and the bytes the authenticator is to sign. */
export async function newSignInChallenge(env: Pick<Env, "INSTANCE_SECRET_KEY">, now = Date.now()) {
  const id = `sic_${Math.floor(now / 1000) + CHALLENGE_SECONDS}_${randomText(24)}`;
  return { id, challenge: await challengeFor(env, id) };
}

/**
 * Spend a sign-in challenge id: the challenge (base64url, as WebAuthn's clientData carries it) when the id is
 * well formed, unexpired by the database's clock and not spent before, else undefined. Spent whatever the
 * assertion then proves, so a captured response cannot be tried again.
 */
export async function spendSignInChallenge(q: Queryable, env: Pick<Env, "INSTANCE_SECRET_KEY">, id: string): Promise<string | undefined> {
  const match = ID_SHAPE.exec(id);
  if (!match) return undefined;
  const expires = Number(match[1]);
  const challenge = toBase64Url(await challengeFor(env, id));
  // An id claiming to live longer than any issued one is not ours (it could not be, without the key, anyway).
  const result = await q.execute(sql`
    insert into ${webauthnChallenges} (id, purpose, challenge, expires_at, used_at)
    select ${id}, 'sign_in', ${challenge}, to_timestamp(${expires}), now()
    where to_timestamp(${expires}) > now() and to_timestamp(${expires}) <= now() + make_interval(secs => ${CHALLENGE_SECONDS + 60})
    on conflict (id) do nothing
    returning id`);
  return result.rows.length === 1 ? challenge : undefined;
}
