import { and, desc, eq, gt, inArray, isNotNull } from "drizzle-orm";
import type Stripe from "stripe";
import { subscriptions } from "../../db/schema";
import type { Queryable } from "../db/client";
import type { StripeConfig } from "./settings";
import { paymentProviderFailed, stripeClient } from "./stripe-client";

/** Statuses in which Stripe still charges (or will charge) a subscription. */
const RUNNING = ["trialing", "active", "past_due"] as const;

type SubscriptionRow = typeof subscriptions.$inferSelect;

/** Whether this is a subscription Stripe is charging for: ours to ask Stripe about before replacing it. */
export const chargedByStripe = (sub: SubscriptionRow | null): sub is SubscriptionRow & { providerSubscriptionId: string } =>
  sub !== null && sub.provider === "stripe" && sub.providerSubscriptionId !== null && (RUNNING as readonly string[]).includes(sub.status);

/**
 * Ask Stripe to end a subscription at its period end (or, `cancel: false`, to keep renewing it), through the SDK with
 * an Idempotency-Key naming this change, and answer Stripe's subscription as it is after the change.
 */
export async function setCancelAtPeriodEnd(
  stripe: StripeConfig,
  providerSubscriptionId: string,
  cancel: boolean,
  idempotencyKey: string,
): Promise<Stripe.Subscription> {
  const client = await stripeClient(stripe);
  try {
    return await client.subscriptions.update(providerSubscriptionId, { cancel_at_period_end: cancel }, { idempotencyKey });
  } catch (err) {
    throw paymentProviderFailed(err, cancel ? "schedule the subscription's end" : "keep the subscription renewing");
  }
}

/**
 * Whether a Stripe subscription that something else replaced (an administrator's override) is still running until
 * its period end, with Stripe asked to end it then: the organization pays nothing more, and the status says so.
 */
export async function replacedSubscriptionEnding(q: Queryable, organizationId: string, now: Date): Promise<boolean> {
  const [row] = await q
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.organizationId, organizationId),
        eq(subscriptions.provider, "stripe"),
        isNotNull(subscriptions.endedAt),
        eq(subscriptions.cancelAtPeriodEnd, true),
        inArray(subscriptions.status, [...RUNNING]),
        gt(subscriptions.currentPeriodEnd, now),
      ),
    )
    .orderBy(desc(subscriptions.endedAt))
    .limit(1);
  return row !== undefined;
}

/** The organization's customer at Stripe (of its latest subscription paid through Stripe), or null. */
export async function providerCustomerOf(q: Queryable, organizationId: string): Promise<string | null> {
  const [row] = await q
    .select({ customer: subscriptions.providerCustomerId })
    .from(subscriptions)
    .where(and(eq(subscriptions.organizationId, organizationId), eq(subscriptions.provider, "stripe"), isNotNull(subscriptions.providerCustomerId)))
    .orderBy(desc(subscriptions.createdAt))
    .limit(1);
  return row?.customer ?? null;
}
