import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { planLimitBreach, planLimitReached, type PlanBreach } from "./enforce";
import { organizationOfWorkspace } from "./organizations";
import { billingEnabled } from "./state";

/**
 * The one check before AI budget is spent, the same for discovery and builds (at creation and again before the
 * build's consumer asks the model): with billing on, the plan in force and its `ai_budget_microusd` against what
 * the organization's workspaces committed or reserved this period. Null when the model may be asked.
 */
export async function aiBudgetBreach(env: Env, q: Queryable, workspaceId: string): Promise<PlanBreach | null> {
  if (!(await billingEnabled(env, q))) return null;
  return planLimitBreach(env, q, await organizationOfWorkspace(q, workspaceId), [{ limit: "ai_budget_microusd", adding: 0 }]);
}

/** As aiBudgetBreach, for a request: 403 `plan-limit-reached` naming `ai_budget_microusd` when it is used up. */
export async function requireAiBudget(env: Env, q: Queryable, workspaceId: string): Promise<void> {
  const breach = await aiBudgetBreach(env, q, workspaceId);
  if (breach) throw planLimitReached(breach);
}
