import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type Stripe from "stripe";
import { billingWebhookEvents } from "../../db/schema";
import { paymentProviderFailed, stripeClient, verifiedEvent } from "../../lib/billing/stripe-client";
import { applyStripeEvent } from "../../lib/billing/stripe-events";
import { db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { logEvent } from "../../lib/log";
import { billingSettings } from "../../lib/billing/settings";
import { StripeWebhookReceipt } from "./schemas";
import { publicAccess } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/billing/webhooks/stripe",
  operationId: "receiveStripeWebhook",
  tags: ["billing"],
  summary: "Receive a Stripe webhook event",
  description:
    "Public (no bearer token): the `Stripe-Signature` header (`t=…,v1=…`, HMAC-SHA256 of `<t>.<raw body>` under the configured `stripe_webhook_secret`, within 5 minutes, verified by Stripe's SDK) authenticates it; anything else → 400 and nothing changes. Each event id is applied once: a replay answers `duplicate: true`. " +
    "Events are applied in the order Stripe made them, whatever order they arrive in: an event older than the last one applied to its subscription changes nothing, and one of the same second makes Herald fetch the subscription from Stripe. " +
    "`checkout.session.completed` (once paid) and `checkout.session.async_payment_succeeded` complete the checkout attempt and give its subscription Stripe's current state; `checkout.session.expired` expires it; `customer.subscription.*` follow the subscription. " +
    "409 `conflict`: the event names a checkout this instance does not hold yet; it is not recorded, and Stripe delivers it again. 502: Stripe could not be asked for the subscription's state; nothing was recorded.",
  request: {
    headers: z.object({ "stripe-signature": z.string().max(2000).optional() }),
    body: { content: { "application/json": { schema: z.object({}).passthrough().openapi({ description: "A Stripe Event object" }) } }, required: true },
  },
  responses: { 200: jsonResponse(StripeWebhookReceipt, "Received (applied now or before)"), ...problems(400, 404, 409, 413, 422, 502) },
});

export const access = publicAccess("Stripe calls it; each event is verified by its signature instead");

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const database = db(c);
  const stripe = (await billingSettings(c.env, database)).stripe;
  if (!stripe?.webhookSecret) throw new ApiError("not-found", { detail: "Stripe webhooks are not configured on this instance." });
  // The signature covers the exact bytes received; read them before anything parses the body.
  const payload = await c.req.text();
  const event = await verifiedEvent(payload, c.req.header("stripe-signature"), stripe.webhookSecret);
  if (!event) {
    throw new ApiError("bad-request", {
      detail: "The Stripe-Signature header does not verify for this payload (or is older than 5 minutes); nothing changed.",
    });
  }
  let client: Promise<Stripe> | undefined;
  const fetchSubscription = async (id: string) => {
    client ??= stripeClient(stripe);
    try {
      return await (await client).subscriptions.retrieve(id);
    } catch (err) {
      throw paymentProviderFailed(err, "say what the subscription is now");
    }
  };
  const applied = await database.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(billingWebhookEvents)
      .values({ id: event.id, provider: "stripe", type: event.type })
      .onConflictDoNothing()
      .returning({ id: billingWebhookEvents.id });
    if (!fresh) return false;
    // Throws when the event cannot be applied yet: the transaction (its record included) is rolled back.
    await applyStripeEvent(tx, event, { fetchSubscription });
    return true;
  });
  if (!applied) logEvent("info", "stripe webhook replayed", { event_id: event.id, type: event.type });
  return c.json(withSchema(c, StripeWebhookReceipt, { received: true, duplicate: !applied }), 200);
};
