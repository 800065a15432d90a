import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { checkoutAttempts, organizations, subscriptions } from "../../db/schema";
import { STRIPE_API_VERSION } from "../../lib/billing/stripe-client";
import type { Env } from "../../lib/env";
import { startStripeStandIn, type StripeEvent, type StripeStandIn } from "../peers/stripe-api";
import { env, newUser, withDb } from "./harness";
import { clientWithEnv, expectData } from "./typed";

type User = Awaited<ReturnType<typeof newUser>>;

/**
 * Billing through Stripe in a test file: a stand-in for Stripe's API (test/peers/stripe-api.ts; Stripe cannot run
 * here) started for the file, and the typed client with billing on and Stripe's keys as environment variables of its
 * calls only (other test files keep billing off). Herald reaches the stand-in through Stripe's own SDK.
 */
export function useStripeBilling() {
  let stripe: StripeStandIn;
  let stripeEnv: Env;
  beforeAll(async () => {
    stripe = await startStripeStandIn({ apiVersion: STRIPE_API_VERSION });
    stripeEnv = {
      ...env,
      BILLING_ENABLED: "true",
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_BASE: stripe.url,
    } as Env;
  });
  afterAll(() => stripe?.stop());

  const as = (user?: User, over: Record<string, string> = {}) => clientWithEnv(user?.token, { ...stripeEnv, ...over });
  /** Deliver an event to the webhook as Stripe does: the exact payload, signed. */
  const deliver = (event: StripeEvent | Record<string, unknown>, opts: { at?: number; header?: string } = {}) => {
    const payload = JSON.stringify(event);
    const header = opts.header ?? stripe.sign(payload, opts.at);
    return as().POST("/billing/webhooks/stripe", { params: { header: { "stripe-signature": header } }, body: event, bodySerializer: () => payload });
  };
  const statusOf = (user: User) => as(user).GET("/billing/status");
  const subscriptionRow = async (id: string) => (await withDb((db) => db.select().from(subscriptions).where(eq(subscriptions.id, id))))[0];
  const requestsTo = (method: string, path: RegExp) => stripe.requests.filter((r) => r.method === method && path.test(r.path));
  const personalOrg = async (userId: string) =>
    (
      await withDb((db) =>
        db
          .select({ id: organizations.id })
          .from(organizations)
          .where(and(eq(organizations.ownerUserId, userId), eq(organizations.kind, "personal"))),
      )
    )[0].id;

  /** A user whose first workspace bought `plan` through a Checkout Session, not yet paid. */
  async function openCheckout(plan = "team", interval: "month" | "year" = "month") {
    const user = await newUser();
    const choice = expectData(await as(user).POST("/billing/purchase-choices", { body: { plan_id: plan, interval } }), 201);
    const body = { workspace_name: "Paid", continuation_token: choice.continuation_token };
    const first = expectData(await as(user).POST("/onboarding/first-workspace", { body }), 201);
    const [attempt] = await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, first.checkout.id)));
    return { user, body, first, attempt, sessionId: attempt.providerSessionId! };
  }

  /** A user paying for `plan` through Stripe: the checkout completed and both of Stripe's events delivered. */
  async function payingUser(plan = "team") {
    const open = await openCheckout(plan);
    const events = stripe.complete(open.sessionId);
    for (const e of events) expect((await deliver(e)).response.status).toBe(200);
    return { ...open, stripeSubscriptionId: events[0].data.object.id };
  }

  return {
    stripe: () => stripe,
    env: () => stripeEnv,
    as,
    deliver,
    statusOf,
    subscriptionRow,
    requestsTo,
    personalOrg,
    openCheckout,
    payingUser,
  };
}
