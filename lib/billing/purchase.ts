import { and, eq, isNotNull } from "drizzle-orm";
import { subscriptions } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { Env } from "../env";
import { DomainError } from "../errors";
import { CONTINUATION_TTL_MS, type PurchaseFacts } from "./continuation";
import { findPlan, type Interval } from "./plans";
import { billingSettings, type StripeConfig } from "./settings";

export type { StripeConfig } from "./settings";

/** Stripe's settings as they are now (read per call), or null when there is no payment provider. */
export async function stripeConfig(env: Env, q: Queryable): Promise<StripeConfig | null> {
  return (await billingSettings(env, q)).stripe;
}

/** A trial is for an organization that has not had one before. */
export async function trialEligible(q: Queryable, organizationId: string): Promise<boolean> {
  const [row] = await q
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.organizationId, organizationId), isNotNull(subscriptions.trialEnd)))
    .limit(1);
  return row === undefined;
}

/**
 * The facts of buying `planId` per `interval` now: price, trial, whether money is needed now and through which
 * provider, and when the choice expires. A plan that needs payment now on an instance without a payment
 * provider cannot be bought (422).
 */
export async function purchaseFacts(
  env: Env,
  q: Queryable,
  organizationId: string,
  planId: string,
  interval: Interval,
  now = new Date(),
): Promise<PurchaseFacts> {
  const plan = findPlan(planId);
  if (!plan || !plan.purchasable) {
    throw new DomainError("validation-error", "No such plan can be bought.", {
      errors: [{ location: "body.plan_id", message: "Unknown or not purchasable plan", value: planId }],
    });
  }
  const amount = plan.price_minor[interval];
  const eligible = plan.trial_days > 0 && (await trialEligible(q, organizationId));
  const requiredNow = amount > 0 && !eligible;
  const stripe = await stripeConfig(env, q);
  if (requiredNow && !stripe) {
    throw new DomainError("validation-error", "This plan needs payment now and no payment provider is configured on this instance.", {
      errors: [{ location: "body.plan_id", message: "Needs a payment provider", value: planId }],
    });
  }
  return {
    plan_id: plan.id,
    interval,
    price: { amount_minor: amount, currency: plan.currency },
    trial: { days: plan.trial_days, eligible },
    payment: { provider: stripe && amount > 0 ? "stripe" : "none", required_now: requiredNow },
    expires_at: new Date(now.getTime() + CONTINUATION_TTL_MS).toISOString(),
  };
}
