import { and, eq, isNull } from "drizzle-orm";
import { socialAccounts, type Role } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { ApiError, notFound } from "../../lib/http/errors";
import { requireRole } from "../../lib/http/workspace-guard";

/**
 * A connected account the caller may act on with at least `min`: 404 when it does not exist, was
 * disconnected, or lives in a workspace the caller is not a member of; 403 when the role is too low.
 */
export async function accountFor(q: Queryable, userId: string, accountId: string, min: Role) {
  const [row] = await q
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.id, accountId), isNull(socialAccounts.disconnectedAt)))
    .limit(1);
  if (!row) throw notFound("account");
  try {
    await requireRole(q, userId, row.workspaceId, min, "account");
  } catch (err) {
    if (err instanceof ApiError && err.slug === "forbidden") throw err;
    throw notFound("account");
  }
  return row;
}
