import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import { billingWebhookEvents, checkoutAttempts, subscriptions } from "../../db/schema";
import { audit } from "../../lib/audit";
import { verifyStripeSignature } from "../../lib/billing/stripe";
import type { Tx } from "../../lib/db/client";
import { db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { logEvent } from "../../lib/log";
import { settingsInForce } from "../../lib/settings";
import { StripeWebhookReceipt } from "./schemas";
import { publicAccess } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/billing/webhooks/stripe",
  tags: ["billing"],
  summary: "Receive a Stripe webhook event",
  description:
    "Public (no bearer token): the `Stripe-Signature` header (`t=…,v1=…`, HMAC-SHA256 of `<t>.<raw body>` under the configured `stripe_webhook_secret`, within 5 minutes) authenticates it; anything else → 400 and nothing changes. Each event id is applied once: a replay answers `duplicate: true`. `checkout.session.completed` (once paid) and `checkout.session.async_payment_succeeded` complete the checkout attempt and activate its subscription; `checkout.session.expired` expires it; `customer.subscription.updated` / `.deleted` follow the subscription's status.",
  request: {
    headers: z.object({ "stripe-signature": z.string().max(2000).optional() }),
    body: { content: { "application/json": { schema: z.object({}).passthrough().openapi({ description: "A Stripe Event object" }) } }, required: true },
  },
  responses: { 200: jsonResponse(StripeWebhookReceipt, "Received (applied now or before)"), ...problems(400, 404, 413, 422) },
});

type StripeObject = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" && v.length <= 500 ? v : null);
const unixDate = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? new Date(v * 1000) : null);

const STATUS: Record<string, "trialing" | "active" | "past_due" | "canceled" | "incomplete"> = {
  trialing: "trialing",
  active: "active",
  past_due: "past_due",
  unpaid: "past_due",
  canceled: "canceled",
  incomplete: "incomplete",
  incomplete_expired: "canceled",
};

async function checkoutCompleted(tx: Tx, session: StripeObject): Promise<void> {
  const sessionId = str(session.id);
  // A delayed payment method: the session completes now but is paid later (async_payment_succeeded).
  if (!sessionId || session.payment_status === "unpaid") return;
  const [attempt] = await tx.select().from(checkoutAttempts).where(eq(checkoutAttempts.providerSessionId, sessionId)).for("update");
  if (!attempt || attempt.status === "completed") return;
  const now = new Date();
  await tx.update(checkoutAttempts).set({ status: "completed", completedAt: now }).where(eq(checkoutAttempts.id, attempt.id));
  if (attempt.subscriptionId) {
    await tx
      .update(subscriptions)
      .set({
        status: "active",
        providerSubscriptionId: str(session.subscription),
        providerCustomerId: str(session.customer),
        currentPeriodStart: now,
        updatedAt: now,
      })
      .where(and(eq(subscriptions.id, attempt.subscriptionId), isNull(subscriptions.endedAt)));
  }
  await audit(tx, {
    actorUserId: null,
    actorKind: "system",
    workspaceId: attempt.workspaceId,
    action: "billing.checkout.complete",
    targetType: "checkout_attempt",
    targetId: attempt.id,
  });
}

async function checkoutExpired(tx: Tx, session: StripeObject): Promise<void> {
  const sessionId = str(session.id);
  if (!sessionId) return;
  const [attempt] = await tx.select().from(checkoutAttempts).where(eq(checkoutAttempts.providerSessionId, sessionId)).for("update");
  if (!attempt || attempt.status !== "open") return;
  const now = new Date();
  await tx.update(checkoutAttempts).set({ status: "expired" }).where(eq(checkoutAttempts.id, attempt.id));
  if (attempt.subscriptionId) {
    await tx
      .update(subscriptions)
      .set({ status: "canceled", endedAt: now, updatedAt: now })
      .where(and(eq(subscriptions.id, attempt.subscriptionId), eq(subscriptions.status, "incomplete"), isNull(subscriptions.endedAt)));
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

async function subscriptionChanged(tx: Tx, object: StripeObject, deleted: boolean): Promise<void> {
  const providerId = str(object.id);
  if (!providerId) return;
  const [sub] = await tx
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.providerSubscriptionId, providerId), isNull(subscriptions.endedAt)))
    .for("update");
  if (!sub) return;
  const now = new Date();
  const status = deleted ? "canceled" : (STATUS[String(object.status)] ?? sub.status);
  const items = (object.items as { data?: StripeObject[] } | undefined)?.data;
  const periodEnd = unixDate(object.current_period_end) ?? unixDate(items?.[0]?.current_period_end);
  const periodStart = unixDate(object.current_period_start) ?? unixDate(items?.[0]?.current_period_start);
  await tx
    .update(subscriptions)
    .set({
      status,
      cancelAtPeriodEnd: object.cancel_at_period_end === true,
      pastDueSince: status === "past_due" ? (sub.pastDueSince ?? now) : null,
      ...(periodEnd ? { currentPeriodEnd: periodEnd } : {}),
      ...(periodStart ? { currentPeriodStart: periodStart } : {}),
      ...(status === "canceled" ? { endedAt: now } : {}),
      updatedAt: now,
    })
    .where(eq(subscriptions.id, sub.id));
  await audit(tx, { actorUserId: null, actorKind: "system", action: `billing.subscription.${status}`, targetType: "subscription", targetId: sub.id });
}

export const access = publicAccess("Stripe calls it; each event is verified by its signature instead");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const database = db(c);
  const webhookSecret = (await settingsInForce(c.env, database)).get("stripe_webhook_secret");
  if (!webhookSecret) throw new ApiError("not-found", { detail: "Stripe webhooks are not configured on this instance." });
  // The signature covers the exact bytes received; read them before anything parses the body.
  const payload = await c.req.text();
  if (!(await verifyStripeSignature(webhookSecret, payload, c.req.header("stripe-signature")))) {
    throw new ApiError("bad-request", {
      detail: "The Stripe-Signature header does not verify for this payload (or is older than 5 minutes); nothing changed.",
    });
  }
  let event: { id?: unknown; type?: unknown; data?: { object?: StripeObject } };
  try {
    event = JSON.parse(payload);
  } catch {
    throw new ApiError("bad-request", { detail: "The event is not JSON." });
  }
  const id = str(event?.id);
  const type = str(event?.type);
  if (!id || !type) throw new ApiError("bad-request", { detail: "The event has no id or type." });
  const object = (event.data?.object ?? {}) as StripeObject;

  const applied = await database.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(billingWebhookEvents)
      .values({ id, provider: "stripe", type })
      .onConflictDoNothing()
      .returning({ id: billingWebhookEvents.id });
    if (!fresh) return false;
    if (type === "checkout.session.completed" || type === "checkout.session.async_payment_succeeded") await checkoutCompleted(tx, object);
    else if (type === "checkout.session.expired") await checkoutExpired(tx, object);
    else if (type === "customer.subscription.updated" || type === "customer.subscription.created") await subscriptionChanged(tx, object, false);
    else if (type === "customer.subscription.deleted") await subscriptionChanged(tx, object, true);
    return true;
  });
  if (!applied) logEvent("info", "stripe webhook replayed", { event_id: id, type });
  return c.json(withSchema(c, StripeWebhookReceipt, { received: true, duplicate: !applied }), 200);
};
