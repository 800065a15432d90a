import type { Queryable } from "../db/client";

/**
 * Accounts of a workspace whose provider can report analytics. Connected accounts arrive with
 * publishing (issue 3); until then a workspace has none.
 */
export async function countCollectableAccounts(_q: Queryable, _workspaceId: string): Promise<number> {
  return 0;
}
