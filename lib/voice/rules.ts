/**
 * The rules of Voice Profiles that need no database: which assignments are acceptable and how the
 * workspace default behaves. Routes gather the facts, these decide.
 *
 * Default policy (CONTRACT.md §5 leaves it open): a workspace with profiles has exactly one default.
 * - The first profile created in a workspace becomes its default (there is nothing else it could fall back on).
 * - `POST /voice-profiles/{id}/default` moves the default; the profile that stops being default changed
 *   too (its `is_default`), so its revision grows as well.
 * - The default cannot be deleted while other profiles exist (409 not-editable: make another the default
 *   first); the last profile of a workspace can be deleted, default or not.
 */

export interface AssignmentIssue {
  index: number;
  accountId: string;
  message: string;
}

/**
 * Problems with `assigned_account_ids`: an id listed twice, or one that is not a social account of the
 * profile's workspace (accounts of other workspaces look exactly like missing ones).
 */
export function assignmentIssues(requested: readonly string[], workspaceAccountIds: ReadonlySet<string>): AssignmentIssue[] {
  const seen = new Set<string>();
  const issues: AssignmentIssue[] = [];
  requested.forEach((accountId, index) => {
    if (seen.has(accountId)) issues.push({ index, accountId, message: "Listed more than once" });
    else if (!workspaceAccountIds.has(accountId)) issues.push({ index, accountId, message: "No social account with this id in the profile's workspace" });
    seen.add(accountId);
  });
  return issues;
}

/** Requested accounts already assigned to another profile (an account writes in one voice). */
export function assignmentClashes(
  requested: readonly string[],
  assignedTo: ReadonlyMap<string, string>,
  profileId: string | null,
): { index: number; accountId: string; profileId: string }[] {
  return requested.flatMap((accountId, index) => {
    const holder = assignedTo.get(accountId);
    return holder && holder !== profileId ? [{ index, accountId, profileId: holder }] : [];
  });
}

/** A new profile is the default exactly when its workspace has none yet. */
export const isDefaultOnCreate = (workspaceHasDefault: boolean) => !workspaceHasDefault;

/** Deleting the default would leave a workspace with profiles but no default. */
export const deletionLeavesNoDefault = (profileIsDefault: boolean, otherProfiles: number) => profileIsDefault && otherProfiles > 0;
