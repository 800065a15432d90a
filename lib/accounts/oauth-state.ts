import { generateCodeVerifier, generateState } from "arctic";
import { eq, lt, sql } from "drizzle-orm";
import { oauthStates, type Platform } from "../../db/schema";
import type { Queryable } from "../db/client";
import { sha256Hex } from "../crypto";
import { decryptSecret, encryptSecret } from "../secrets";

/**
 * OAuth connection states (CONTRACT §9): single use, 10 minutes by the database's clock, bound to the user and
 * workspace that started them. Only the state's SHA-256 is stored, so a database reader cannot complete a
 * connection; the PKCE verifier is sealed under INSTANCE_SECRET_KEY.
 */

export const STATE_TTL_MINUTES = 10;

export interface StartedState {
  state: string;
  codeVerifier: string | null;
  expiresAt: Date;
}

export async function createState(
  q: Queryable,
  instanceSecret: string,
  input: { platform: Platform; workspaceId: string; userId: string; redirectUri: string | null; pkce: boolean },
): Promise<StartedState> {
  const state = generateState();
  const codeVerifier = input.pkce ? generateCodeVerifier() : null;
  // States nobody came back for: gone a day after they expired (kept that long only to tell "expired" from "forged").
  await q.delete(oauthStates).where(lt(oauthStates.expiresAt, sql`now() - interval '1 day'`));
  const [row] = await q
    .insert(oauthStates)
    .values({
      stateHash: await sha256Hex(state),
      platform: input.platform,
      workspaceId: input.workspaceId,
      userId: input.userId,
      redirectUri: input.redirectUri,
      codeVerifierCiphertext: codeVerifier ? await encryptSecret(instanceSecret, codeVerifier) : null,
      expiresAt: sql`now() + make_interval(mins => ${STATE_TTL_MINUTES})`,
    })
    .returning({ expiresAt: oauthStates.expiresAt });
  return { state, codeVerifier, expiresAt: row.expiresAt };
}

export type ConsumedState =
  | { ok: true; platform: Platform; workspaceId: string; userId: string; redirectUri: string | null; codeVerifier: string | null }
  | { ok: false; reason: "unknown" | "expired"; redirectUri: string | null };

/**
 * Takes a state for good: one DELETE … RETURNING, so of two callbacks with the same state exactly one gets the
 * row and the other finds nothing (replayed). Expired (by the database's clock) is told apart from unknown.
 */
export async function consumeState(q: Queryable, instanceSecret: string, state: string): Promise<ConsumedState> {
  if (!state || state.length > 200) return { ok: false, reason: "unknown", redirectUri: null };
  const [row] = await q
    .delete(oauthStates)
    .where(eq(oauthStates.stateHash, await sha256Hex(state)))
    .returning({
      platform: oauthStates.platform,
      workspaceId: oauthStates.workspaceId,
      userId: oauthStates.userId,
      redirectUri: oauthStates.redirectUri,
      codeVerifierCiphertext: oauthStates.codeVerifierCiphertext,
      live: sql<boolean>`${oauthStates.expiresAt} > now()`,
    });
  if (!row) return { ok: false, reason: "unknown", redirectUri: null };
  if (!row.live) return { ok: false, reason: "expired", redirectUri: row.redirectUri };
  return {
    ok: true,
    platform: row.platform,
    workspaceId: row.workspaceId,
    userId: row.userId,
    redirectUri: row.redirectUri,
    codeVerifier: row.codeVerifierCiphertext ? await decryptSecret(instanceSecret, row.codeVerifierCiphertext) : null,
  };
}
