import { and, asc, eq, inArray, isNull, ne, or } from "drizzle-orm";
import { repostGrants, socialAccounts, workspaceMembers, workspaces } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { supportsRepost } from "../../lib/repost/accounts";

/** Cap on accounts listed per response: the settings page names accounts, it does not page through them. */
export const MAX_ACCOUNTS = 500;

/**
 * Accounts a policy of `workspaceId` can use: its own, those granted to it, and (so an admin can see what a
 * grant would unlock) accounts of other workspaces the caller belongs to. Nothing from workspaces the caller
 * cannot see.
 */
export async function settingsAccounts(q: Queryable, workspaceId: string, userId: string) {
  const granted = q.select({ id: repostGrants.targetAccountId }).from(repostGrants).where(eq(repostGrants.sourceWorkspaceId, workspaceId));
  const mine = q.select({ id: workspaceMembers.workspaceId }).from(workspaceMembers).where(eq(workspaceMembers.userId, userId));
  const rows = await q
    .select({ account: socialAccounts, workspaceName: workspaces.name })
    .from(socialAccounts)
    .innerJoin(workspaces, eq(workspaces.id, socialAccounts.workspaceId))
    .where(
      and(
        isNull(socialAccounts.disconnectedAt),
        or(eq(socialAccounts.workspaceId, workspaceId), inArray(socialAccounts.id, granted), inArray(socialAccounts.workspaceId, mine)),
      ),
    )
    .orderBy(asc(ne(socialAccounts.workspaceId, workspaceId)), asc(socialAccounts.createdAt), asc(socialAccounts.id))
    .limit(MAX_ACCOUNTS);
  const grantedIds = new Set(
    rows.length
      ? (
          await q
            .select({ id: repostGrants.targetAccountId })
            .from(repostGrants)
            .where(
              and(
                eq(repostGrants.sourceWorkspaceId, workspaceId),
                inArray(
                  repostGrants.targetAccountId,
                  rows.map((r) => r.account.id),
                ),
              ),
            )
        ).map((r) => r.id)
      : [],
  );
  return rows.map(({ account: a, workspaceName }) => {
    const cross = a.workspaceId !== workspaceId;
    const canRepost = supportsRepost(a.platform);
    const grantActive = !cross || grantedIds.has(a.id);
    return {
      id: a.id,
      platform: a.platform,
      username: a.username,
      avatar_url: a.avatarUrl,
      instance_url: a.instanceUrl,
      workspace_id: a.workspaceId,
      workspace_name: workspaceName,
      cross_workspace: cross,
      grant_required: cross,
      grant_active: grantActive,
      supports_repost: canRepost,
      unavailable_reason: !canRepost
        ? `${a.platform} accounts cannot repost`
        : !a.isActive
          ? "The account is inactive"
          : !grantActive
            ? "Needs a grant from an admin of its workspace"
            : null,
    };
  });
}
