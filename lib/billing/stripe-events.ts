import { and, desc, eq, or, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { checkoutAttempts, planCheckouts, subscriptions } from "../../db/schema";
import { audit } from "../audit";
import type { Tx } from "../db/client";
import { DomainError } from "../errors";
import { newId } from "../ids";
import { endCurrentSubscription } from "./checkout";
import { lockOrganization } from "./organizations";
import type { PlanCheckoutRow } from "./plan-checkout";

/**
 * Stripe's webhook events applied in the order Stripe made them, whatever order they arrive in. Each subscription
 * remembers the `created` second of the latest event applied to it (`provider_event_at`): an older event is stale
 * and changes nothing; one of the same second cannot be placed, so the subscription is fetched from Stripe as it is
 * now and that is applied. A checkout's completion fetches the subscription too (the session does not carry its
 * state). An event naming a Herald checkout this database does not hold yet is not applicable yet: it throws, so it
 * is not recorded as applied and Stripe delivers it again.
 */
export interface EventContext {
  /** The subscription as Stripe has it now. */
  fetchSubscription(id: string): Promise<Stripe.Subscription>;
}

type SubscriptionRow = typeof subscriptions.$inferSelect;
type Status = SubscriptionRow["status"];

const STATUS: Record<string, Status> = {
  trialing: "trialing",
  active: "active",
  past_due: "past_due",
  unpaid: "past_due",
  canceled: "canceled",
  incomplete: "incomplete",
  incomplete_expired: "canceled",
  paused: "past_due",
};

const notYet = () =>
  new DomainError("conflict", "This event names a checkout this instance does not hold yet; it was not applied, and Stripe will deliver it again.");

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));
const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);
const unixDate = (s: number | null | undefined) => (typeof s === "number" && s > 0 ? new Date(s * 1000) : null);

export async function applyStripeEvent(tx: Tx, event: Stripe.Event, ctx: EventContext): Promise<void> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return checkoutCompleted(tx, event.data.object, event.created, ctx);
    case "checkout.session.expired":
      return checkoutExpired(tx, event.data.object);
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.paused":
    case "customer.subscription.resumed":
      return subscriptionEvent(tx, event.data.object, event.created, ctx);
    default:
      return;
  }
}

/** Our row of a Stripe subscription (ended or not), locked; found by its id, else through its checkout's metadata. */
async function rowOf(tx: Tx, sub: { id: string; metadata?: Stripe.Metadata | null }): Promise<SubscriptionRow | null> {
  const [linked] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.providerSubscriptionId, sub.id))
    .orderBy(desc(subscriptions.createdAt))
    .limit(1)
    .for("update");
  if (linked) return linked;
  const planCheckoutId = sub.metadata?.plan_checkout_id;
  if (planCheckoutId) {
    // Its subscription is made when the checkout completes: until then the event cannot be applied.
    const [checkout] = await tx.select({ subscriptionId: planCheckouts.subscriptionId }).from(planCheckouts).where(eq(planCheckouts.id, planCheckoutId));
    if (!checkout?.subscriptionId) throw notYet();
    const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, checkout.subscriptionId)).for("update");
    return row ?? null;
  }
  const attemptId = sub.metadata?.checkout_attempt_id;
  if (!attemptId) return null;
  const [attempt] = await tx.select({ subscriptionId: checkoutAttempts.subscriptionId }).from(checkoutAttempts).where(eq(checkoutAttempts.id, attemptId));
  if (!attempt) throw notYet();
  if (!attempt.subscriptionId) return null;
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, attempt.subscriptionId)).for("update");
  return row ?? null;
}

async function subscriptionEvent(tx: Tx, object: Stripe.Subscription, created: number, ctx: EventContext): Promise<void> {
  const row = await rowOf(tx, object);
  // Not one of Herald's subscriptions (another product on the same Stripe account): nothing to do.
  if (!row) return;
  const stored = seconds(row.providerEventAt);
  if (stored !== null && created < stored) return;
  const state = stored !== null && created === stored ? await ctx.fetchSubscription(object.id) : object;
  await applySubscription(tx, row, state, Math.max(created, stored ?? 0));
}

/**
 * Stripe's state of a subscription onto our row: status, periods (on its first item since API 2025-03-31),
 * cancellation at period end, trial end. A canceled one ends (if it was current); an ended row (replaced by an
 * override or another purchase) keeps following Stripe without becoming current again.
 */
export async function applySubscription(tx: Tx, row: SubscriptionRow, sub: Stripe.Subscription, eventAt: number): Promise<void> {
  const status = STATUS[sub.status] ?? row.status;
  const item = sub.items?.data?.[0];
  const start = unixDate(item?.current_period_start);
  const end = unixDate(item?.current_period_end);
  await tx
    .update(subscriptions)
    .set({
      status,
      providerSubscriptionId: sub.id,
      providerCustomerId: idOf(sub.customer) ?? row.providerCustomerId,
      cancelAtPeriodEnd: sub.cancel_at_period_end === true,
      trialEnd: unixDate(sub.trial_end) ?? row.trialEnd,
      ...(start ? { currentPeriodStart: start } : {}),
      ...(end ? { currentPeriodEnd: end } : {}),
      pastDueSince: status === "past_due" ? sql`coalesce(${subscriptions.pastDueSince}, now())` : null,
      endedAt: status === "canceled" ? sql`coalesce(${subscriptions.endedAt}, now())` : row.endedAt,
      providerEventAt: new Date(eventAt * 1000),
      updatedAt: sql`now()`,
    })
    .where(eq(subscriptions.id, row.id));
  if (status !== row.status) {
    await audit(tx, { actorUserId: null, actorKind: "system", action: `billing.subscription.${status}`, targetType: "subscription", targetId: row.id });
  }
}

/** The plan checkout (POST /billing/checkout) a session belongs to, locked; null when it is a first workspace's. */
async function planCheckoutOf(tx: Tx, session: Stripe.Checkout.Session): Promise<PlanCheckoutRow | null> {
  const ref = session.metadata?.plan_checkout_id ?? (session.client_reference_id?.startsWith("pck_") ? session.client_reference_id : null);
  const [checkout] = await tx
    .select()
    .from(planCheckouts)
    .where(ref ? or(eq(planCheckouts.providerSessionId, session.id), eq(planCheckouts.id, ref)) : eq(planCheckouts.providerSessionId, session.id))
    .limit(1)
    .for("update");
  if (!checkout && ref) throw notYet();
  return checkout ?? null;
}

/** A paid plan checkout: its subscription is made now, replacing the organization's current one, with Stripe's state. */
async function planCheckoutCompleted(tx: Tx, checkout: PlanCheckoutRow, session: Stripe.Checkout.Session, created: number, ctx: EventContext): Promise<void> {
  const providerId = idOf(session.subscription);
  if (!providerId) return;
  let rowId = checkout.subscriptionId;
  if (!rowId) {
    await lockOrganization(tx, checkout.organizationId);
    await endCurrentSubscription(tx, checkout.organizationId);
    const [made] = await tx
      .insert(subscriptions)
      .values({
        id: newId("sub"),
        organizationId: checkout.organizationId,
        planId: checkout.planId,
        interval: checkout.interval,
        status: "incomplete",
        provider: "stripe",
        providerSubscriptionId: providerId,
        providerCustomerId: idOf(session.customer),
        createdBy: checkout.userId,
      })
      .returning();
    await tx.update(planCheckouts).set({ status: "completed", completedAt: sql`now()`, subscriptionId: made.id }).where(eq(planCheckouts.id, checkout.id));
    await audit(tx, { actorUserId: null, actorKind: "system", action: "billing.checkout.complete", targetType: "plan_checkout", targetId: checkout.id });
    rowId = made.id;
  }
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, rowId)).for("update");
  if (!row) return;
  await applySubscription(tx, row, await ctx.fetchSubscription(providerId), Math.max(created, seconds(row.providerEventAt) ?? 0));
}

async function attemptOf(tx: Tx, session: Stripe.Checkout.Session) {
  const attemptId = session.client_reference_id ?? session.metadata?.checkout_attempt_id ?? null;
  const [attempt] = await tx
    .select()
    .from(checkoutAttempts)
    .where(
      attemptId
        ? or(eq(checkoutAttempts.providerSessionId, session.id), eq(checkoutAttempts.id, attemptId))
        : eq(checkoutAttempts.providerSessionId, session.id),
    )
    .limit(1)
    .for("update");
  if (!attempt && attemptId) throw notYet();
  return attempt ?? null;
}

async function checkoutCompleted(tx: Tx, session: Stripe.Checkout.Session, created: number, ctx: EventContext): Promise<void> {
  // A delayed payment method: the session completes now but is paid later (async_payment_succeeded).
  if (session.payment_status === "unpaid") return;
  const plan = await planCheckoutOf(tx, session);
  if (plan) return planCheckoutCompleted(tx, plan, session, created, ctx);
  const attempt = await attemptOf(tx, session);
  if (!attempt) return;
  if (attempt.status !== "completed") {
    await tx.update(checkoutAttempts).set({ status: "completed", completedAt: sql`now()` }).where(eq(checkoutAttempts.id, attempt.id));
    await audit(tx, {
      actorUserId: null,
      actorKind: "system",
      workspaceId: attempt.workspaceId,
      action: "billing.checkout.complete",
      targetType: "checkout_attempt",
      targetId: attempt.id,
    });
  }
  const subscriptionId = idOf(session.subscription);
  if (!attempt.subscriptionId || !subscriptionId) return;
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, attempt.subscriptionId)).for("update");
  if (!row) return;
  // The session says it was paid, not what the subscription is now: Stripe's current object decides.
  const current = await ctx.fetchSubscription(subscriptionId);
  await applySubscription(tx, row, current, Math.max(created, seconds(row.providerEventAt) ?? 0));
}

async function checkoutExpired(tx: Tx, session: Stripe.Checkout.Session): Promise<void> {
  const plan = await planCheckoutOf(tx, session);
  if (plan) {
    if (plan.status === "open") await tx.update(planCheckouts).set({ status: "expired" }).where(eq(planCheckouts.id, plan.id));
    return;
  }
  const attempt = await attemptOf(tx, session);
  if (attempt?.status !== "open") return;
  await tx.update(checkoutAttempts).set({ status: "expired" }).where(eq(checkoutAttempts.id, attempt.id));
  if (attempt.subscriptionId) {
    await tx
      .update(subscriptions)
      .set({ status: "canceled", endedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(subscriptions.id, attempt.subscriptionId), eq(subscriptions.status, "incomplete"), sql`${subscriptions.endedAt} is null`));
  }
  await audit(tx, {
    actorUserId: null,
    actorKind: "system",
    workspaceId: attempt.workspaceId,
    action: "billing.checkout.expire",
    targetType: "checkout_attempt",
    targetId: attempt.id,
  });
}
