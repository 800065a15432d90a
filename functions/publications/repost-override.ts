import type { z } from "@hono/zod-openapi";
import type { RepostOverrideData } from "../../db/schema/repost";
import type { Queryable } from "../../lib/db/client";
import { ApiError } from "../../lib/http/errors";
import { policyAccountIssues } from "../../lib/repost/accounts";
import type { RepostOverrideInput } from "../../lib/schemas/repost-rule";

/** What a publication answers when it has no override of its own. */
export const INHERIT: RepostOverrideData = { mode: "inherit", rule: null, target_account_ids: [] };

/**
 * A request's `repost_override` as stored (null: inherit), or undefined when the request leaves it alone. A
 * custom override's targets are checked as a policy's: accounts that can repost, the workspace's own or
 * granted to it (else 422 naming each, `body.repost_override.target_account_ids[i]`).
 */
export async function storedRepostOverride(
  q: Queryable,
  workspaceId: string,
  input: z.output<typeof RepostOverrideInput> | undefined,
): Promise<RepostOverrideData | null | undefined> {
  if (input === undefined) return undefined;
  if (input.mode === "inherit") return null;
  if (input.mode === "off" || !input.rule || !input.target_account_ids) return { mode: "off", rule: null, target_account_ids: [] };
  const issues = await policyAccountIssues(q, workspaceId, input.target_account_ids, "target");
  if (issues.length) {
    throw new ApiError("validation-error", {
      detail: `${issues.length} target account${issues.length === 1 ? " is" : "s are"} not usable: ${issues.map((i) => `body.repost_override.target_account_ids[${i.index}]`).join(", ")}`,
      errors: issues.map((i) => ({ location: `body.repost_override.target_account_ids[${i.index}]`, message: i.message, value: i.accountId })),
    });
  }
  return { mode: "custom", rule: input.rule, target_account_ids: input.target_account_ids };
}
