import type { repostPolicies } from "../../db/schema";
import type { Queryable } from "../../lib/db/client";
import { ApiError } from "../../lib/http/errors";
import { policyAccountIssues } from "../../lib/repost/accounts";

export type PolicyRow = typeof repostPolicies.$inferSelect;

export const toPolicy = (row: PolicyRow) => ({
  id: row.id,
  workspace_id: row.workspaceId,
  name: row.name,
  enabled: row.enabled,
  rule: row.rule,
  source_account_ids: row.sourceAccountIds,
  target_account_ids: row.targetAccountIds,
  revision: row.revision,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** Sources and targets must be the workspace's own accounts (targets: or granted to it); else 422 naming each. */
export async function checkPolicyAccounts(
  q: Queryable,
  workspaceId: string,
  body: { source_account_ids: string[]; target_account_ids: string[] },
): Promise<void> {
  const issues = [
    ...(await policyAccountIssues(q, workspaceId, body.source_account_ids, "source")).map((i) => ({ ...i, field: "source_account_ids" })),
    ...(await policyAccountIssues(q, workspaceId, body.target_account_ids, "target")).map((i) => ({ ...i, field: "target_account_ids" })),
  ];
  if (issues.length === 0) return;
  throw new ApiError("validation-error", {
    detail: `${issues.length} account${issues.length === 1 ? " is" : "s are"} not usable: ${issues.map((i) => `body.${i.field}[${i.index}]`).join(", ")}`,
    errors: issues.map((i) => ({ location: `body.${i.field}[${i.index}]`, message: i.message, value: i.accountId })),
  });
}
