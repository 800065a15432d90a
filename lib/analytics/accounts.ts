import type { Queryable } from "../db/client";

/**
 * Accounts of a workspace whose measurements a collection run gathers. Collecting from providers is
 * a later issue; until it is built a run gathers none, and says so rather than claim accounts were queued.
 */
export async function countCollectableAccounts(_q: Queryable, _workspaceId: string): Promise<number> {
  return 0;
}
