import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { DomainError } from "../errors";
import { checkAddition } from "./logic";
import { lockOrganization, organizationOfWorkspace } from "./organizations";
import type { LimitName } from "./plans";
import { billingEnabled, organizationBilling, organizationUsage } from "./state";

export interface LimitCheck {
  limit: LimitName;
  /** How much the action adds; 0 asks whether the limit (a budget) is already used up. */
  adding: number;
}

/**
 * The one plan-limit check every creating route calls, inside its own transaction and before it inserts:
 * it locks the organization's row (so concurrent creations of one organization are counted one at a time),
 * counts usage and throws 403 `plan-limit-reached` (with `limit`, `usage` and `allowed`) when an addition
 * would go over the plan. With billing off it does nothing.
 */
export async function enforcePlanLimits(
  tx: Queryable,
  env: Env,
  scope: { workspaceId: string } | { organizationId: string },
  checks: LimitCheck[],
): Promise<void> {
  if (checks.length === 0 || !(await billingEnabled(env, tx))) return;
  const organizationId = "organizationId" in scope ? scope.organizationId : await organizationOfWorkspace(tx, scope.workspaceId);
  await lockOrganization(tx, organizationId);
  const billing = await organizationBilling(env, tx, organizationId);
  if (checks.every((c) => billing.plan.limits[c.limit] === undefined)) return;
  const usage = await organizationUsage(tx, organizationId, billing.periodStart);
  for (const check of checks) {
    const breach = checkAddition(billing.plan.limits, usage, check.limit, check.adding);
    if (breach) {
      throw new DomainError(
        "plan-limit-reached",
        `The ${billing.plan.id} plan allows ${breach.allowed} for ${breach.limit}; ${breach.usage} used. Nothing was created.`,
        {
          extra: { limit: breach.limit, usage: breach.usage, allowed: breach.allowed, plan_id: billing.plan.id },
        },
      );
    }
  }
}
