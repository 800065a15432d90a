import { and, eq, isNull } from "drizzle-orm";
import { checkoutAttempts, subscriptions } from "../../db/schema";
import type { Queryable, Tx } from "../db/client";
import { newId } from "../ids";
import type { PurchaseFacts } from "./continuation";
import { addMonths, DAY_MS } from "./logic";
import { planOrThrow } from "./plans";
import type { StripeConfig } from "./settings";
import { paymentProviderFailed, stripeClient } from "./stripe-client";

export type CheckoutRow = typeof checkoutAttempts.$inferSelect;

/** A checkout attempt stays open this long when the provider does not say otherwise. */
const CHECKOUT_TTL_MS = DAY_MS;

/** End the organization's current subscription (if any), so a new one can become current. */
export async function endCurrentSubscription(tx: Tx | Queryable, organizationId: string, now = new Date()) {
  const [ended] = await tx
    .update(subscriptions)
    .set({ endedAt: now, status: "canceled", updatedAt: now })
    .where(and(eq(subscriptions.organizationId, organizationId), isNull(subscriptions.endedAt)))
    .returning();
  return ended ?? null;
}

/**
 * Record the subscription and the checkout attempt for a confirmed purchase choice, inside the caller's
 * transaction. Without payment needed now (a free plan, a trial) both complete at once; otherwise the
 * subscription is `incomplete` and the attempt `open` until the provider's webhook says it was paid.
 */
export async function recordCheckout(
  tx: Tx,
  input: { userId: string; organizationId: string; workspaceId: string; facts: PurchaseFacts; requestHash: string; now?: Date },
): Promise<CheckoutRow> {
  const now = input.now ?? new Date();
  const { facts } = input;
  const paysNow = facts.payment.required_now;
  const trial = facts.trial.eligible && facts.trial.days > 0;
  const trialEnd = trial ? new Date(now.getTime() + facts.trial.days * DAY_MS) : null;
  await endCurrentSubscription(tx, input.organizationId, now);
  const [subscription] = await tx
    .insert(subscriptions)
    .values({
      id: newId("sub"),
      organizationId: input.organizationId,
      planId: facts.plan_id,
      interval: facts.interval,
      status: paysNow ? "incomplete" : trial ? "trialing" : "active",
      provider: paysNow ? "stripe" : "none",
      currentPeriodStart: now,
      currentPeriodEnd: trialEnd ?? addMonths(now, facts.interval === "year" ? 12 : 1),
      trialEnd,
      createdBy: input.userId,
    })
    .returning();
  const [attempt] = await tx
    .insert(checkoutAttempts)
    .values({
      id: newId("chk"),
      userId: input.userId,
      organizationId: input.organizationId,
      workspaceId: input.workspaceId,
      subscriptionId: subscription.id,
      planId: facts.plan_id,
      interval: facts.interval,
      status: paysNow ? "open" : "completed",
      provider: paysNow ? "stripe" : "none",
      requestHash: input.requestHash,
      expiresAt: new Date(now.getTime() + CHECKOUT_TTL_MS),
      completedAt: paysNow ? null : now,
    })
    .returning();
  return attempt;
}

export interface SessionRequest {
  /** Our id of what is being paid for: the session's client_reference_id and the Idempotency-Key's tail. */
  reference: string;
  planId: string;
  interval: "month" | "year";
  email: string;
  baseUrl: string;
  /** Kept on the session and on the subscription it makes, so Stripe's events find what they belong to. */
  metadata: Record<string, string>;
}

/**
 * A hosted Checkout Session (mode subscription) through Stripe's SDK, once per reference: the Idempotency-Key names
 * it, so the SDK's own retries and a retry after a lost answer get the same session.
 */
export async function openCheckoutSession(stripe: StripeConfig, req: SessionRequest): Promise<{ id: string; url: string; expires_at: number }> {
  const plan = planOrThrow(req.planId);
  const client = await stripeClient(stripe);
  let session: { id: string; url: string | null; expires_at: number };
  try {
    session = await client.checkout.sessions.create(
      {
        mode: "subscription",
        client_reference_id: req.reference,
        customer_email: req.email,
        success_url: `${req.baseUrl}/billing/status?checkout_id=${req.reference}`,
        cancel_url: `${req.baseUrl}/billing/status?checkout_id=${req.reference}&canceled=true`,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: plan.currency,
              unit_amount: plan.price_minor[req.interval],
              recurring: { interval: req.interval },
              product_data: { name: `Herald ${plan.name}` },
            },
          },
        ],
        metadata: req.metadata,
        subscription_data: { metadata: req.metadata },
      },
      { idempotencyKey: `herald-checkout-${req.reference}` },
    );
  } catch (err) {
    throw paymentProviderFailed(err, "open the checkout");
  }
  if (!session.url) throw paymentProviderFailed(null, "open the checkout (it gave no URL)");
  return { id: session.id, url: session.url, expires_at: session.expires_at };
}

/**
 * Give an open Stripe attempt its hosted Checkout Session (openCheckoutSession) and store it. The subscription
 * carries the attempt's ids in its metadata, so its events find it whatever order they arrive in.
 */
export async function ensureStripeSession(
  q: Queryable,
  stripe: StripeConfig,
  attempt: CheckoutRow,
  ctx: { email: string; baseUrl: string },
): Promise<CheckoutRow> {
  if (attempt.provider !== "stripe" || attempt.status !== "open" || attempt.providerSessionId) return attempt;
  const session = await openCheckoutSession(stripe, {
    reference: attempt.id,
    planId: attempt.planId,
    interval: attempt.interval,
    email: ctx.email,
    baseUrl: ctx.baseUrl,
    metadata: { checkout_attempt_id: attempt.id, organization_id: attempt.organizationId, plan_id: attempt.planId },
  });
  const [updated] = await q
    .update(checkoutAttempts)
    .set({ providerSessionId: session.id, checkoutUrl: session.url, ...(session.expires_at ? { expiresAt: new Date(session.expires_at * 1000) } : {}) })
    .where(and(eq(checkoutAttempts.id, attempt.id), isNull(checkoutAttempts.providerSessionId)))
    .returning();
  if (updated) return updated;
  const [current] = await q.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, attempt.id));
  return current;
}
