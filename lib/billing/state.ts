import { type SQL, sql } from "drizzle-orm";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { settingsInForce } from "../settings";
import { periodEnd, periodStart, zeroUsage, type CostRow } from "./logic";
import { currentSubscription } from "./organizations";
import { defaultPlanId, planOrThrow, type Plan, type Usage } from "./plans";

/** Statuses in which a subscription's plan is in force (an `incomplete` one waits for its checkout). */
const IN_FORCE = new Set(["trialing", "active", "past_due"]);

export interface OrganizationBilling {
  organizationId: string;
  billingEnabled: boolean;
  plan: Plan;
  status: string;
  provider: string | null;
  subscription: Awaited<ReturnType<typeof currentSubscription>>;
  periodStart: Date;
  periodEnd: Date;
}

export async function billingEnabled(env: Env, q: Queryable): Promise<boolean> {
  return (await settingsInForce(env, q)).flag("billing_enabled");
}

/**
 * The plan in force for an organization. Billing off: `self_hosted` for everyone (subscriptions, overrides
 * included, wait until billing is on). Billing on: the current subscription's plan while it is trialing,
 * active or past due, else `free`.
 */
export async function organizationBilling(env: Env, q: Queryable, organizationId: string, now = new Date()): Promise<OrganizationBilling> {
  const enabled = await billingEnabled(env, q);
  const subscription = await currentSubscription(q, organizationId);
  const inForceSub = enabled && subscription !== null && IN_FORCE.has(subscription.status) ? subscription : null;
  const anchor = inForceSub ? inForceSub.currentPeriodStart : null;
  return {
    organizationId,
    billingEnabled: enabled,
    plan: planOrThrow(inForceSub ? inForceSub.planId : defaultPlanId(enabled)),
    status: enabled && subscription ? subscription.status : "active",
    provider: enabled && subscription ? subscription.provider : null,
    subscription: enabled ? subscription : null,
    periodStart: periodStart(now, anchor),
    periodEnd: inForceSub?.currentPeriodEnd && inForceSub.currentPeriodEnd > now ? inForceSub.currentPeriodEnd : periodEnd(now, anchor),
  };
}

/**
 * Usage of every limit name for an organization, counted from the database: publications and builds created
 * since `since`, connected (not disconnected) social accounts, workspaces, distinct workspace members, bytes
 * of stored media (trash included: it still occupies storage) and provider costs committed or reserved
 * since `since`.
 */
export async function organizationUsage(q: Queryable, organizationId: string, since: Date): Promise<Usage> {
  const ws = sql`(select id from workspaces where organization_id = ${organizationId})`;
  const sinceIso = since.toISOString();
  const result = await q.execute(sql`
    select
      (select count(*) from publications where workspace_id in ${ws} and created_at >= ${sinceIso}::timestamptz) as publications_per_month,
      (select count(*) from social_accounts where workspace_id in ${ws} and disconnected_at is null) as social_accounts,
      (select count(*) from workspaces where organization_id = ${organizationId}) as workspaces,
      (select count(distinct user_id) from workspace_members where workspace_id in ${ws}) as members,
      (select coalesce(sum(size), 0) from media where workspace_id in ${ws}) as storage_bytes,
      (select count(*) from publication_builds where workspace_id in ${ws} and created_at >= ${sinceIso}::timestamptz) as builds_per_month,
      (select coalesce(sum(cost_microusd), 0) from ${costLedger(ws, since)} c where status in ('committed', 'reserved')) as ai_budget_microusd`);
  const row = (result.rows[0] ?? {}) as Record<string, string | number | null>;
  const usage = zeroUsage();
  for (const name of Object.keys(usage) as (keyof Usage)[]) usage[name] = Number(row[name] ?? 0);
  return usage;
}

/**
 * The provider-cost ledger of some workspaces since `since`: the events, and the monthly totals that old events
 * are folded into (lib/retention/provider-costs.ts) for months starting at or after `since`. Exact for any
 * `since` in the unfolded range (every billing period) or on a month's first instant.
 */
function costLedger(workspaces: SQL, since: Date): SQL {
  const sinceIso = since.toISOString();
  return sql`(
    select provider, operation, status, 1::bigint as events, units, cost_microusd from provider_cost_events
    where workspace_id in ${workspaces} and created_at >= ${sinceIso}::timestamptz
    union all
    select provider, operation, status, events, units, cost_microusd from provider_cost_monthly_totals
    where workspace_id in ${workspaces} and month >= ${sinceIso}::timestamptz
  )`;
}

/** The provider-cost ledger of an organization since `since`, by provider, operation and status. */
export async function providerCostRows(q: Queryable, organizationId: string, since: Date): Promise<CostRow[]> {
  const result = await q.execute(sql`
    select provider, operation, status, sum(events) as events, coalesce(sum(units), 0) as units, coalesce(sum(cost_microusd), 0) as cost
    from ${costLedger(sql`(select id from workspaces where organization_id = ${organizationId})`, since)} c
    where status in ('committed', 'reserved')
    group by provider, operation, status
    order by provider, operation, status`);
  return (result.rows as Record<string, unknown>[]).map((r) => ({
    provider: String(r.provider),
    operation: String(r.operation),
    status: String(r.status),
    events: Number(r.events),
    units: Number(r.units),
    cost: Number(r.cost),
  }));
}
