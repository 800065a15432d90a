import { and, eq, inArray, isNull } from "drizzle-orm";
import { repostGrants, socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";

/** Platforms whose accounts can repost: a Bluesky repost record, a Mastodon-API reblog, an X retweet, a Threads repost, a LinkedIn reshare. */
export const REPOST_PLATFORMS = ["bluesky", "mastodon", "x", "threads", "linkedin"] as const;

export const supportsRepost = (platform: string) => (REPOST_PLATFORMS as readonly string[]).includes(platform);

export interface AccountIssue {
  index: number;
  accountId: string;
  message: string;
}

/**
 * Which of `ids` a policy of `workspaceId` may name. Sources must be connected accounts of the workspace;
 * targets may also be another workspace's account granted to it. Unknown and foreign ids get the same
 * message, so nothing about other workspaces is revealed.
 */
export async function policyAccountIssues(q: Queryable, workspaceId: string, ids: string[], role: "source" | "target"): Promise<AccountIssue[]> {
  const unique = [...new Set(ids)];
  const rows = await q
    .select({ id: socialAccounts.id, workspaceId: socialAccounts.workspaceId, platform: socialAccounts.platform })
    .from(socialAccounts)
    .where(and(inArray(socialAccounts.id, unique), isNull(socialAccounts.disconnectedAt)));
  const granted =
    role === "target"
      ? new Set(
          (
            await q
              .select({ id: repostGrants.targetAccountId })
              .from(repostGrants)
              .where(and(eq(repostGrants.sourceWorkspaceId, workspaceId), inArray(repostGrants.targetAccountId, unique)))
          ).map((r) => r.id),
        )
      : new Set<string>();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const seen = new Set<string>();
  const issues: AccountIssue[] = [];
  ids.forEach((accountId, index) => {
    const row = byId.get(accountId);
    const visible = row && (row.workspaceId === workspaceId || granted.has(accountId));
    if (!visible)
      issues.push({ index, accountId, message: role === "target" ? "Not an account of this workspace or granted to it" : "Not an account of this workspace" });
    else if (seen.has(accountId)) issues.push({ index, accountId, message: "Listed twice" });
    else if (role === "target" && !supportsRepost(row.platform)) issues.push({ index, accountId, message: `A ${row.platform} account cannot repost` });
    seen.add(accountId);
  });
  return issues;
}
