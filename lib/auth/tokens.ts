import type { Pool } from "@neondatabase/serverless";
import { and, eq, isNull, sql, type Placeholder } from "drizzle-orm";
import { apiTokens, users, type Role } from "../../db/schema";
import { sha256Hex } from "../crypto";
import type { Queryable } from "../db/client";
import { compileStatement, runCompiled, statementBuilder } from "../db/compiled";
import { newId, randomText } from "../ids";
import { callerColumns } from "./caller";

const TOKEN_PREFIX = "hld_";
/** Shape of a token we could have issued; anything else is rejected before touching the database. */
const TOKEN_SHAPE = /^[A-Za-z0-9_\-.~+/=]{16,512}$/;

export function looksLikeToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export const hashToken = (token: string) => sha256Hex(token);

/** A bearer token that is not revoked (one definition for the lookup and lib/auth/read-guard.ts). */
export const liveToken = (hash: string | Placeholder) => and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt))!;

/** Issue a new bearer token; only its hash is stored. */
export async function issueToken(q: Queryable, userId: string, name: string) {
  const token = `${TOKEN_PREFIX}${randomText(40)}`;
  const [row] = await q
    .insert(apiTokens)
    .values({ id: newId("tok"), userId, name, tokenHash: await hashToken(token) })
    .returning();
  return { row, token };
}

type CallerRow = typeof users.$inferSelect & { role: Role | null };

function callerByToken(withRole: boolean) {
  return compileStatement<CallerRow & { tokenId: string }>(
    statementBuilder
      .select({ ...callerColumns(withRole ? sql.placeholder("workspaceId") : undefined), tokenId: apiTokens.id })
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(liveToken(sql.placeholder("hash")))
      .limit(1),
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
