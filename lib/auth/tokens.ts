import { and, eq, isNull } from "drizzle-orm";
import { apiTokens, users } from "../../db/schema";
import { sha256Hex } from "../crypto";
import type { Queryable } from "../db/client";
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
export const liveToken = (hash: string) => and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt))!;

/** Issue a new bearer token; only its hash is stored. */
export async function issueToken(q: Queryable, userId: string, name: string) {
  const token = `${TOKEN_PREFIX}${randomText(40)}`;
  const [row] = await q
    .insert(apiTokens)
    .values({ id: newId("tok"), userId, name, tokenHash: await hashToken(token) })
    .returning();
  return { row, token };
}

/** The live token's user (and role in `workspaceId`, see lib/auth/caller.ts), in one statement. */
export async function findUserByToken(q: Queryable, tokenHash: string, workspaceId?: string) {
  const [row] = await q
    .select({ ...callerColumns(workspaceId), tokenId: apiTokens.id })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(liveToken(tokenHash))
    .limit(1);
  return row;
}
