import type { Queryable } from "../../lib/db/client";
import { ApiError } from "../../lib/http/errors";
import { assignmentClashes, assignmentIssues } from "../../lib/voice/rules";
import { accountsInWorkspace, profileHolding } from "../../lib/voice/store";

/**
 * `assigned_account_ids` must name distinct social accounts of the profile's workspace (else 422 naming
 * `body.assigned_account_ids[i]`) that no other profile holds (else 409 conflict). Call it with the
 * workspace's voice lock held, so the answer stays true until commit.
 */
export async function checkAssignments(tx: Queryable, profile: { id: string | null; workspaceId: string }, accountIds: string[]): Promise<void> {
  const issues = assignmentIssues(accountIds, await accountsInWorkspace(tx, profile.workspaceId, accountIds));
  if (issues.length > 0) {
    throw new ApiError("validation-error", {
      detail: `${issues.length} assigned account${issues.length === 1 ? " is" : "s are"} not usable: ${issues.map((i) => `body.assigned_account_ids[${i.index}]`).join(", ")}`,
      errors: issues.map((i) => ({ location: `body.assigned_account_ids[${i.index}]`, message: i.message, value: i.accountId })),
    });
  }
  const clashes = assignmentClashes(accountIds, await profileHolding(tx, accountIds), profile.id);
  if (clashes.length > 0) {
    throw new ApiError("conflict", {
      detail: `An account writes in one voice: ${clashes.map((c) => `${c.accountId} is assigned to voice profile ${c.profileId}`).join("; ")}. Remove it there first.`,
      errors: clashes.map((c) => ({
        location: `body.assigned_account_ids[${c.index}]`,
        message: `Assigned to voice profile ${c.profileId}`,
        value: c.accountId,
      })),
    });
  }
}
