import { and, eq, isNull, sql } from "drizzle-orm";
import { planCheckouts, subscriptions } from "../../db/schema";
import type { Queryable, Tx } from "../db/client";
import { DomainError } from "../errors";
import { newId } from "../ids";
import { endCurrentSubscription, openCheckoutSession } from "./checkout";
import type { PurchaseFacts } from "./continuation";
import { DAY_MS } from "./logic";
import { currentSubscription, lockOrganization } from "./organizations";
import { chargedByStripe } from "./provider-subscription";
import type { StripeConfig } from "./settings";

export type PlanCheckoutRow = typeof planCheckouts.$inferSelect;

/** How long an open plan checkout waits when Stripe does not say otherwise. */
const CHECKOUT_TTL_MS = DAY_MS;

/**
 * Record the checkout of a purchase choice for an existing organization (POST /billing/checkout), inside the
 * caller's transaction; an exact retry (same organization and token) finds the first one. A trial needing no payment
 * starts at once and replaces the current subscription; a paid plan waits for Stripe's word that it was paid before
 * its subscription exists (lib/billing/stripe-events.ts), so an abandoned checkout changes nothing. An organization
 * already paying through Stripe changes plan in Stripe's customer portal instead (409), so it is never charged twice.
 */
export async function recordPlanCheckout(
  tx: Tx,
  input: { userId: string; organizationId: string; facts: PurchaseFacts; requestHash: string },
): Promise<{ checkout: PlanCheckoutRow; created: boolean }> {
  await lockOrganization(tx, input.organizationId);
  const [existing] = await tx
    .select()
    .from(planCheckouts)
    .where(and(eq(planCheckouts.organizationId, input.organizationId), eq(planCheckouts.requestHash, input.requestHash)));
  if (existing) return { checkout: existing, created: false };
  const { facts } = input;
  if (facts.price.amount_minor === 0) {
    throw new DomainError("validation-error", "This plan costs nothing: there is nothing to check out (cancel the paid subscription instead).", {
      errors: [{ location: "body.continuation_token", message: "A plan without a price", value: facts.plan_id }],
    });
  }
  if (chargedByStripe(await currentSubscription(tx, input.organizationId))) {
    throw new DomainError(
      "conflict",
      "The organization already pays through Stripe: change its plan in the customer portal (POST /billing/portal), or cancel it first.",
    );
  }
  const base = {
    id: newId("pck"),
    organizationId: input.organizationId,
    userId: input.userId,
    planId: facts.plan_id,
    interval: facts.interval,
    requestHash: input.requestHash,
    expiresAt: sql`now() + make_interval(secs => ${CHECKOUT_TTL_MS / 1000})`,
  };
  if (facts.payment.required_now) {
    const [checkout] = await tx
      .insert(planCheckouts)
      .values({ ...base, status: "open" })
      .returning();
    return { checkout, created: true };
  }
  // A trial that needs no payment now: it starts at once, ending at its last day (the database's clock).
  await endCurrentSubscription(tx, input.organizationId);
  const trialEnd = sql`now() + make_interval(days => ${facts.trial.days})`;
  const [subscription] = await tx
    .insert(subscriptions)
    .values({
      id: newId("sub"),
      organizationId: input.organizationId,
      planId: facts.plan_id,
      interval: facts.interval,
      status: "trialing",
      provider: "none",
      currentPeriodEnd: trialEnd,
      trialEnd,
      createdBy: input.userId,
    })
    .returning();
  const [checkout] = await tx
    .insert(planCheckouts)
    .values({ ...base, status: "completed", subscriptionId: subscription.id, completedAt: sql`now()` })
    .returning();
  return { checkout, created: true };
}

/** Give an open plan checkout its hosted Checkout Session (once) and store it. */
export async function ensurePlanCheckoutSession(
  q: Queryable,
  stripe: StripeConfig,
  checkout: PlanCheckoutRow,
  ctx: { email: string; baseUrl: string },
): Promise<PlanCheckoutRow> {
  if (checkout.status !== "open" || checkout.providerSessionId) return checkout;
  const session = await openCheckoutSession(stripe, {
    reference: checkout.id,
    planId: checkout.planId,
    interval: checkout.interval,
    email: ctx.email,
    baseUrl: ctx.baseUrl,
    metadata: { plan_checkout_id: checkout.id, organization_id: checkout.organizationId, plan_id: checkout.planId },
  });
  const [updated] = await q
    .update(planCheckouts)
    .set({ providerSessionId: session.id, checkoutUrl: session.url, expiresAt: new Date(session.expires_at * 1000) })
    .where(and(eq(planCheckouts.id, checkout.id), isNull(planCheckouts.providerSessionId)))
    .returning();
  if (updated) return updated;
  const [current] = await q.select().from(planCheckouts).where(eq(planCheckouts.id, checkout.id));
  return current;
}
