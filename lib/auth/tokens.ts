import type { Pool } from "@neondatabase/serverless";
import { and, asc, count, eq, isNull, or, sql, type Placeholder } from "drizzle-orm";
import { apiTokens, users, type Role } from "../../db/schema";
import { sha256Hex } from "../crypto";
import type { Queryable } from "../db/client";
import { compileStatement, runCompiled, statementBuilder } from "../db/compiled";
import { DomainError } from "../errors";
import { newId, randomText } from "../ids";
import { callerColumns } from "./caller";

const TOKEN_PREFIX = "hld_";
/** Shape of a token we could have issued; anything else is rejected before touching the database. */
const TOKEN_SHAPE = /^[A-Za-z0-9_\-.~+/=]{16,512}$/;

/** CONTRACT §9: a person holds at most this many live tokens; each one is a credential to keep track of. */
export const MAX_LIVE_TOKENS_PER_USER = 50;
/** CONTRACT §9: a token may be made to expire after 1 to 365 days. */
export const MAX_TOKEN_DAYS = 365;

export function looksLikeToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export const hashToken = (token: string) => sha256Hex(token);

const notExpired = or(isNull(apiTokens.expiresAt), sql`${apiTokens.expiresAt} > now()`)!;

/** A bearer token that is neither revoked nor expired (one definition for the lookup and lib/auth/read-guard.ts). */
export const liveToken = (hash: string | Placeholder) => and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt), notExpired)!;

/** The user's live tokens, oldest first: never their hashes. */
export const liveTokensOf = (q: Queryable, userId: string) =>
  q
    .select({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt, expiresAt: apiTokens.expiresAt })
    .from(apiTokens)
    .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), notExpired))
    .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id))
    .limit(MAX_LIVE_TOKENS_PER_USER);

/**
 * Issue a new bearer token (only its hash is stored), expiring after `expiresInDays` when given. With
 * `enforceLimit`, within the per-user limit of live tokens: the user's row is locked so that concurrent
 * issues are counted one after the other.
 */
export async function issueToken(q: Queryable, userId: string, name: string, opts: { expiresInDays?: number; enforceLimit?: boolean } = {}) {
  if (opts.enforceLimit) {
    await q.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [{ n }] = await q
      .select({ n: count() })
      .from(apiTokens)
      .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), notExpired));
    if (n >= MAX_LIVE_TOKENS_PER_USER)
      throw new DomainError("validation-error", `You already have ${MAX_LIVE_TOKENS_PER_USER} live tokens; revoke one before making another.`, {
        errors: [{ location: "body", message: `At most ${MAX_LIVE_TOKENS_PER_USER} live tokens a person` }],
      });
  }
  const token = `${TOKEN_PREFIX}${randomText(40)}`;
  const days = opts.expiresInDays;
  const [row] = await q
    .insert(apiTokens)
    .values({
      id: newId("tok"),
      userId,
      name,
      tokenHash: await hashToken(token),
      expiresAt: days === undefined ? null : sql`now() + make_interval(days => ${days})`,
    })
    .returning();
  return { row, token };
}

type CallerRow = typeof users.$inferSelect & { role: Role | null };

/** Checks the token and marks it used in one statement (as a session's lookup does, lib/auth/sessions.ts). */
function callerByToken(withRole: boolean) {
  return compileStatement<CallerRow & { tokenId: string }>(
    statementBuilder
      .update(apiTokens)
      .set({ lastUsedAt: sql`now()` })
      .from(users)
      .where(and(eq(users.id, apiTokens.userId), liveToken(sql.placeholder("hash"))))
      .returning({ ...callerColumns(withRole ? sql.placeholder("workspaceId") : undefined), tokenId: apiTokens.id }),
    { ...callerColumns(undefined), tokenId: apiTokens.id },
  );
}
/** Built on first use, once per isolate (lib/db/compiled.ts): authentication runs it on every request. */
const byToken: { withRole?: ReturnType<typeof callerByToken>; withoutRole?: ReturnType<typeof callerByToken> } = {};

/** The live token's user (and role in `workspaceId`, see lib/auth/caller.ts), in one statement. */
export async function findUserByToken(pool: Pool, tokenHash: string, workspaceId?: string) {
  const statement = workspaceId ? (byToken.withRole ??= callerByToken(true)) : (byToken.withoutRole ??= callerByToken(false));
  const [row] = await runCompiled(pool, statement, { hash: tokenHash, workspaceId });
  return row;
}
