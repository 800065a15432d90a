import { and, eq, type SQL } from "drizzle-orm";
import { publications, renditions, repostActivity, repostAttempts, repostGrants, repostPolicies, socialAccounts } from "../../db/schema";
import type { Queryable } from "../db/client";
import { activityOf } from "./activity";

type Attempt = typeof repostAttempts.$inferSelect;

/**
 * Why a queued attempt may no longer be carried out, or null when it still may: its policy is still there,
 * enabled and naming the post's account and the target (or, for a publication's own rule, the override is
 * still `custom` and names the target), the publication does not say otherwise, and a target of another
 * workspace is still granted. Read at the moment of reposting, so what people withdraw takes effect at once.
 */
export async function withdrawnReason(q: Queryable, attempt: Attempt): Promise<string | null> {
  const [post] = await q
    .select({ accountId: renditions.socialAccountId, override: publications.repostOverride })
    .from(renditions)
    .innerJoin(publications, eq(publications.id, renditions.publicationId))
    .where(eq(renditions.id, attempt.renditionId));
  if (!post) return "the post is gone";
  const mode = post.override?.mode ?? "inherit";
  if (attempt.policyId) {
    const [policy] = await q
      .select({ enabled: repostPolicies.enabled, sources: repostPolicies.sourceAccountIds, targets: repostPolicies.targetAccountIds })
      .from(repostPolicies)
      .where(eq(repostPolicies.id, attempt.policyId));
    if (!policy) return "the policy was deleted";
    if (!policy.enabled) return "the policy was disabled";
    if (mode !== "inherit") return `the publication's repost_override is now ${mode}`;
    if (!policy.targets.includes(attempt.targetAccountId)) return "the target account was removed from the policy";
    if (!policy.sources.includes(post.accountId)) return "the post's account was removed from the policy's sources";
  } else {
    if (mode !== "custom") return `the publication's repost_override is now ${mode}`;
    if (!post.override?.target_account_ids.includes(attempt.targetAccountId)) return "the target account was removed from the publication's repost_override";
  }
  const [target] = await q.select({ workspaceId: socialAccounts.workspaceId }).from(socialAccounts).where(eq(socialAccounts.id, attempt.targetAccountId));
  if (target && target.workspaceId !== attempt.workspaceId) {
    const [grant] = await q
      .select({ id: repostGrants.id })
      .from(repostGrants)
      .where(and(eq(repostGrants.targetAccountId, attempt.targetAccountId), eq(repostGrants.sourceWorkspaceId, attempt.workspaceId)));
    if (!grant) return "the grant for the target account was withdrawn";
  }
  return null;
}

/**
 * Drops the queued attempts `where` selects, each recorded in the activity as `dropped` with the reason. The
 * rows go (their outbox jobs then find nothing to do), so the same stage may be queued again should the
 * permission come back. Call inside the transaction that withdraws the permission. Returns how many.
 */
export async function dropQueuedAttempts(q: Queryable, where: SQL, reason: string): Promise<number> {
  const dropped = await q
    .delete(repostAttempts)
    .where(and(eq(repostAttempts.status, "queued"), where))
    .returning();
  for (let i = 0; i < dropped.length; i += 1000) {
    await q.insert(repostActivity).values(dropped.slice(i, i + 1000).map((a) => activityOf(a, "repost", "dropped", `dropped: ${reason}`)));
  }
  return dropped.length;
}
