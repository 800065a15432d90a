import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { DomainError } from "../errors";
import { checkAddition, type LimitBreach } from "./logic";
import { lockOrganization, organizationOfWorkspace } from "./organizations";
import type { LimitName } from "./plans";
import { billingEnabled, organizationBilling, organizationUsage } from "./state";

export interface LimitCheck {
  limit: LimitName;
  /** How much the action adds; 0 asks whether the limit (a budget) is already used up. */
  adding: number;
}

export interface PlanBreach extends LimitBreach {
  planId: string;
}

/** 403 `plan-limit-reached` naming the limit, its usage and what the plan allows. */
export const planLimitReached = (breach: PlanBreach) =>
  new DomainError("plan-limit-reached", `The ${breach.planId} plan allows ${breach.allowed} for ${breach.limit}; ${breach.usage} used. Nothing was created.`, {
    extra: { limit: breach.limit, usage: breach.usage, allowed: breach.allowed, plan_id: breach.planId },
  });

/** The first of `checks` the organization's plan would be breached by, with billing on; null when all fit. */
export async function planLimitBreach(env: Env, q: Queryable, organizationId: string, checks: LimitCheck[]): Promise<PlanBreach | null> {
  const billing = await organizationBilling(env, q, organizationId, { enabled: true });
  if (checks.every((c) => billing.plan.limits[c.limit] === undefined)) return null;
  const usage = await organizationUsage(q, organizationId, billing.periodStart);
  for (const check of checks) {
    const breach = checkAddition(billing.plan.limits, usage, check.limit, check.adding);
    if (breach) return { ...breach, planId: billing.plan.id };
  }
  return null;
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
  const breach = await planLimitBreach(env, tx, organizationId, checks);
  if (breach) throw planLimitReached(breach);
}
