import { and, eq, inArray, isNull } from "drizzle-orm";
import { socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";

/** The workspace's connected accounts (not disconnected): the ones analytics collects from and shows. */
export async function workspaceAccounts(q: Queryable, workspaceId: string, onlyIds?: string[]) {
  if (onlyIds && onlyIds.length === 0) return [];
  return q
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.workspaceId, workspaceId), isNull(socialAccounts.disconnectedAt), onlyIds ? inArray(socialAccounts.id, onlyIds) : undefined))
    .orderBy(socialAccounts.createdAt, socialAccounts.id);
}

/**
 * Accounts of a workspace whose measurements a collection run gathers. Collecting from providers is not
 * wired yet; until it is, a run gathers none and says so rather than claim accounts were queued.
 */
export async function countCollectableAccounts(_q: Queryable, _workspaceId: string): Promise<number> {
  return 0;
}
