import { type SQL, sql } from "drizzle-orm";
import { databaseNow } from "../db/clock";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { periodEnd, periodStart, zeroUsage, type CostRow } from "./logic";
import { currentSubscription } from "./organizations";
import { defaultPlanId, planOrThrow, type Plan, type Usage } from "./plans";
import { billingSettings } from "./settings";

/** Statuses in which a subscription's plan is in force (an `incomplete` one waits for its checkout). */
const IN_FORCE = new Set(["trialing", "active", "past_due"]);

type SubscriptionRow = NonNullable<Awaited<ReturnType<typeof currentSubscription>>>;

/** A trial ends at its `current_period_end` (CONTRACT §9): after it, without a paid subscription, it is over. */
export const trialLapsed = (sub: SubscriptionRow, now: Date) =>
  sub.status === "trialing" && sub.currentPeriodEnd !== null && sub.currentPeriodEnd.getTime() <= now.getTime();

/** Whether a subscription's plan is in force at `now` (the database's time). */
export const inForceAt = (sub: SubscriptionRow, now: Date) => IN_FORCE.has(sub.status) && !trialLapsed(sub, now);

export interface OrganizationBilling {
  organizationId: string;
  billingEnabled: boolean;
  plan: Plan;
  status: string;
  provider: string | null;
  /** The current subscription as shown (null when billing is off or a trial has lapsed). */
  subscription: SubscriptionRow | null;
  /** The database's time the answer holds for. */
  now: Date;
  periodStart: Date;
  periodEnd: Date;
}

/** Whether billing is on, read on every call (lib/settings/live.ts). */
export async function billingEnabled(env: Env, q: Queryable): Promise<boolean> {
  return (await billingSettings(env, q)).enabled;
}

/**
 * The plan in force for an organization, at the database's time. Billing off: `self_hosted` for everyone
 * (subscriptions, overrides included, wait until billing is on). Billing on: the current subscription's plan
 * while it is trialing (until its `current_period_end`), active or past due; else `free`, shown as if there were
 * no subscription (a lapsed trial included).
 */
export async function organizationBilling(
  env: Env,
  q: Queryable,
  organizationId: string,
  known: { enabled?: boolean; now?: Date } = {},
): Promise<OrganizationBilling> {
  const enabled = known.enabled ?? (await billingEnabled(env, q));
  const now = known.now ?? (await databaseNow(q));
  const subscription = enabled ? await currentSubscription(q, organizationId) : null;
  const inForceSub = subscription !== null && inForceAt(subscription, now) ? subscription : null;
  const shown = subscription !== null && !trialLapsed(subscription, now) ? subscription : null;
  const anchor = inForceSub ? inForceSub.currentPeriodStart : null;
  return {
    organizationId,
    billingEnabled: enabled,
    plan: planOrThrow(inForceSub ? inForceSub.planId : defaultPlanId(enabled)),
    status: shown ? shown.status : "active",
    provider: shown ? shown.provider : null,
    subscription: shown,
    now,
    periodStart: periodStart(now, anchor),
    periodEnd: inForceSub?.currentPeriodEnd && inForceSub.currentPeriodEnd > now ? inForceSub.currentPeriodEnd : periodEnd(now, anchor),
  };
}

/**
 * Usage of every limit name for an organization, counted from the database: publications and builds created
 * since `since`, from the usage events their creation recorded (a trigger, migration 0029), so deleting them
 * gives nothing back; connected (not disconnected) social accounts, workspaces, distinct workspace members, bytes
 * of stored media (trash included: it still occupies storage) and provider costs committed or reserved
 * since `since`.
 */
export async function organizationUsage(q: Queryable, organizationId: string, since: Date): Promise<Usage> {
  const ws = sql`(select id from workspaces where organization_id = ${organizationId})`;
  const sinceIso = since.toISOString();
  const result = await q.execute(sql`
    select
      (select count(*) from usage_events where organization_id = ${organizationId} and kind = 'publication' and created_at >= ${sinceIso}::timestamptz) as publications_per_month,
      (select count(*) from social_accounts where workspace_id in ${ws} and disconnected_at is null) as social_accounts,
      (select count(*) from workspaces where organization_id = ${organizationId}) as workspaces,
      (select count(distinct user_id) from workspace_members where workspace_id in ${ws}) as members,
      (select coalesce(sum(size), 0) from media where workspace_id in ${ws}) as storage_bytes,
      (select count(*) from usage_events where organization_id = ${organizationId} and kind = 'build' and created_at >= ${sinceIso}::timestamptz) as builds_per_month,
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
