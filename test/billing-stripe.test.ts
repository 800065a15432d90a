import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, billingWebhookEvents, checkoutAttempts, instanceSettings } from "../db/schema";
import { planOrThrow } from "../lib/billing/plans";
import { billingSettings } from "../lib/billing/settings";
import { STRIPE_API_VERSION } from "../lib/billing/stripe-client";
import type { Env } from "../lib/env";
import { checkValue, findSetting } from "../lib/settings";
import { env, newUser, withDb } from "./helpers/harness";
import { useStripeBilling } from "./helpers/stripe-billing";
import { expectData, expectProblem } from "./helpers/typed";

/**
 * Billing through Stripe (CONTRACT §8, §9 "Billing lifecycle"), against a stand-in for Stripe's API
 * (test/peers/stripe-api.ts: Stripe cannot run here), which Herald reaches through Stripe's own SDK with the base URL
 * pointed at it (test/helpers/stripe-billing.ts).
 */
const { stripe: standIn, as, deliver, statusOf, subscriptionRow, requestsTo, openCheckout, payingUser } = useStripeBilling();

describe("checkout through Stripe's SDK", () => {
  it("opens a hosted Checkout Session with the pinned API version and an Idempotency-Key; the signed webhook completes it with Stripe's state", async () => {
    const before = requestsTo("POST", /^\/v1\/checkout\/sessions$/).length;
    const { user, body, first, attempt, sessionId } = await openCheckout("team");
    expect(first.checkout).toMatchObject({ status: "open", plan_id: "team", checkout_url: `https://checkout.stripe.com/c/pay/${sessionId}` });
    const sent = requestsTo("POST", /^\/v1\/checkout\/sessions$/).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers["idempotency-key"]).toBe(`herald-checkout-${first.checkout.id}`);
    expect(sent[0].headers["stripe-version"]).toBe(STRIPE_API_VERSION);
    expect(sent[0].params).toMatchObject({
      mode: "subscription",
      client_reference_id: first.checkout.id,
      customer_email: user.email,
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "4900", recurring: { interval: "month" } } }],
      metadata: { checkout_attempt_id: first.checkout.id },
      subscription_data: { metadata: { checkout_attempt_id: first.checkout.id } },
    });
    // The exact retry resumes the same attempt without asking Stripe again.
    expect(expectData(await as(user).POST("/onboarding/first-workspace", { body })).checkout).toEqual(first.checkout);
    expect(requestsTo("POST", /^\/v1\/checkout\/sessions$/).length).toBe(before + 1);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "free", status: "incomplete", provider: "stripe" });

    const [created, completed] = standIn().complete(sessionId);
    // Forged (another secret), stale (older than 5 minutes) and unsigned: 400, nothing recorded.
    const payload = JSON.stringify(completed);
    expectProblem(await deliver(completed, { header: `t=${Math.floor(Date.now() / 1000)},v1=${"ab".repeat(32)}` }), 400, "bad-request");
    expectProblem(await deliver(completed, { at: Math.floor(Date.now() / 1000) - 301 }), 400, "bad-request");
    expectProblem(await as().POST("/billing/webhooks/stripe", { body: completed, bodySerializer: () => payload }), 400, "bad-request");
    expect(await withDb((db) => db.select().from(billingWebhookEvents).where(eq(billingWebhookEvents.id, completed.id)))).toEqual([]);

    const fetched = requestsTo("GET", /^\/v1\/subscriptions\//).length;
    expect(expectData(await deliver(completed))).toMatchObject({ received: true, duplicate: false });
    // The completion asked Stripe what the subscription is: its period comes from Stripe, not from "now".
    expect(requestsTo("GET", /^\/v1\/subscriptions\//).length).toBe(fetched + 1);
    const sub = await subscriptionRow(attempt.subscriptionId!);
    const item = (created.data.object.items as { data: { current_period_start: number; current_period_end: number }[] }).data[0];
    expect(sub).toMatchObject({ status: "active", provider: "stripe", planId: "team", providerSubscriptionId: created.data.object.id });
    expect(sub.currentPeriodStart.getTime()).toBe(item.current_period_start * 1000);
    expect(sub.currentPeriodEnd?.getTime()).toBe(item.current_period_end * 1000);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "team", status: "active", provider: "stripe", limits: planOrThrow("team").limits });

    // The same event again: acknowledged as a duplicate, nothing changes (one audit entry).
    expect(expectData(await deliver(completed)).duplicate).toBe(true);
    const completions = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, attempt.id), eq(auditEvents.action, "billing.checkout.complete"))),
    );
    expect(completions).toEqual([expect.objectContaining({ actorKind: "system", actorUserId: null })]);
    // The subscription created event, delivered late: older than what was fetched, so nothing changes.
    expect(expectData(await deliver(created)).duplicate).toBe(false);
    expect((await subscriptionRow(attempt.subscriptionId!)).status).toBe("active");
  });

  it("a failing Stripe is retried by the SDK with the same Idempotency-Key, then 502 with the workspace kept; the exact retry opens the session", async () => {
    const user = await newUser();
    const choice = expectData(await as(user).POST("/billing/purchase-choices", { body: { plan_id: "team", interval: "month" } }), 201);
    const body = { workspace_name: "Flaky", continuation_token: choice.continuation_token };
    const before = standIn().requests.length;
    standIn().failNext = 3;
    expectProblem(await as(user).POST("/onboarding/first-workspace", { body }), 502, "bad-gateway");
    const tries = standIn().requests.slice(before);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    const retry = expectData(await as(user).POST("/onboarding/first-workspace", { body }));
    expect(retry.checkout).toMatchObject({ status: "open", checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) });
  });

  it("an unpaid completion waits; an expired session expires the attempt and leaves the organization on free", async () => {
    const { user, attempt, sessionId } = await openCheckout("team", "year");
    const session = { ...standIn().sessions.get(sessionId)!, status: "complete", payment_status: "unpaid" };
    const event = (type: string) => ({
      id: `evt_${crypto.randomUUID()}`,
      object: "event",
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
    });
    expect((await deliver(event("checkout.session.completed"))).response.status).toBe(200);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "free", status: "incomplete" });
    expect((await deliver(event("checkout.session.expired"))).response.status).toBe(200);
    const [expired] = await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, attempt.id)));
    expect(expired.status).toBe("expired");
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "free", status: "active", provider: null });
  });
});

describe("webhooks in Stripe's order, whatever order they arrive in", () => {
  it("a subscription event before its checkout's completion applies; older events change nothing; duplicates are acknowledged; a same-second event fetches Stripe's state", async () => {
    const { user, attempt, sessionId } = await openCheckout("team");
    const [created, completed] = standIn().complete(sessionId);
    const subId = created.data.object.id;
    // The subscription's own event first: found through its checkout's metadata, applied before the completion.
    expect(expectData(await deliver(created)).duplicate).toBe(false);
    expect((await subscriptionRow(attempt.subscriptionId!)).status).toBe("active");
    expect(expectData(await deliver(completed)).duplicate).toBe(false);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "team", status: "active" });

    const pastDue = standIn().update(subId, { status: "past_due" });
    const recovered = standIn().update(subId, { status: "active", cancel_at_period_end: true });
    // The newer one arrives first, the older one after it, then the older one again.
    expect(expectData(await deliver(recovered)).duplicate).toBe(false);
    expect(expectData(await deliver(pastDue)).duplicate).toBe(false);
    expect(expectData(await deliver(pastDue)).duplicate).toBe(true);
    let row = await subscriptionRow(attempt.subscriptionId!);
    expect(row).toMatchObject({ status: "active", cancelAtPeriodEnd: true, pastDueSince: null });
    expect(expectData(await statusOf(user))).toMatchObject({ status: "active", cancel_at_period_end: true });

    // Two events in the same second cannot be ordered by time: Herald asks Stripe for the subscription as it is now.
    standIn().tick(0);
    const resumed = standIn().update(subId, { cancel_at_period_end: false });
    expect(resumed.created).toBe(recovered.created);
    const fetched = requestsTo("GET", new RegExp(`^/v1/subscriptions/${subId}$`)).length;
    expect(expectData(await deliver(resumed)).duplicate).toBe(false);
    expect(requestsTo("GET", new RegExp(`^/v1/subscriptions/${subId}$`)).length).toBe(fetched + 1);
    row = await subscriptionRow(attempt.subscriptionId!);
    expect(row.cancelAtPeriodEnd).toBe(false);
  });

  it("an event naming a checkout this instance does not hold yet is not applied: 409, not recorded, so Stripe sends it again", async () => {
    const event = {
      id: `evt_${crypto.randomUUID()}`,
      object: "event",
      type: "customer.subscription.updated",
      created: Math.floor(Date.now() / 1000),
      api_version: STRIPE_API_VERSION,
      data: {
        object: {
          id: `sub_${crypto.randomUUID()}`,
          object: "subscription",
          status: "active",
          customer: "cus_unknown",
          cancel_at_period_end: false,
          metadata: { checkout_attempt_id: "chk_not_here_yet" },
          items: { object: "list", data: [] },
        },
      },
    };
    expectProblem(await deliver(event), 409, "conflict");
    expect(await withDb((db) => db.select().from(billingWebhookEvents).where(eq(billingWebhookEvents.id, event.id)))).toEqual([]);
    // An event of a subscription that is not Herald's at all (another product on the same account): acknowledged.
    const foreign = { ...event, id: `evt_${crypto.randomUUID()}`, data: { object: { ...event.data.object, metadata: {} } } };
    expect(expectData(await deliver(foreign)).duplicate).toBe(false);
  });
});

describe("an administrator's override on an organization paying through Stripe", () => {
  it("asks Stripe to end the subscription at its period end; the status says so until Stripe has ended it", async () => {
    const admin = await newUser({ isAdmin: true });
    const { user, attempt, stripeSubscriptionId } = await payingUser("team");
    const override = expectData(await as(admin).PUT("/admin/users/{id}/plan-override", { params: { path: { id: user.id } }, body: { plan_id: "pro" } }));
    expect(override).toMatchObject({ plan_id: "pro", subscription: { provider: "admin", status: "active" } });
    const asked = requestsTo("POST", new RegExp(`^/v1/subscriptions/${stripeSubscriptionId}$`));
    expect(asked).toHaveLength(1);
    expect(asked[0].params).toEqual({ cancel_at_period_end: "true" });
    expect(asked[0].headers["idempotency-key"]).toBe(`herald-override-end-${attempt.subscriptionId}`);
    expect(standIn().subscriptions.get(stripeSubscriptionId)?.cancel_at_period_end).toBe(true);

    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "pro", provider: "admin", status: "active", cancel_at_period_end: true });
    const replaced = await subscriptionRow(attempt.subscriptionId!);
    expect(replaced).toMatchObject({ status: "active", cancelAtPeriodEnd: true, endedAt: expect.any(Date) });

    // Stripe's events for the replaced subscription are still followed, without making it current again.
    expect((await deliver(standIn().events.at(-1)!)).response.status).toBe(200);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "pro", provider: "admin", cancel_at_period_end: true });
    expect((await deliver(standIn().update(stripeSubscriptionId, { status: "canceled" }))).response.status).toBe(200);
    expect((await subscriptionRow(attempt.subscriptionId!)).status).toBe("canceled");
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "pro", provider: "admin", cancel_at_period_end: false });
  });

  it("refuses (409 payment-provider-not-configured) when Stripe is not configured, and changes nothing", async () => {
    const admin = await newUser({ isAdmin: true });
    const { user } = await payingUser("team");
    const withoutStripe = { STRIPE_SECRET_KEY: "" };
    expectProblem(
      await as(admin, withoutStripe).PUT("/admin/users/{id}/plan-override", { params: { path: { id: user.id } }, body: { plan_id: "pro" } }),
      409,
      "payment-provider-not-configured",
    );
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "team", provider: "stripe", cancel_at_period_end: false });
  });
});

describe("billing settings that decide money", () => {
  it("stripe_api_base is Stripe's own origin unless ALLOW_PRIVATE_URLS=true; another one keeps the secret key home", async () => {
    const def = findSetting("stripe_api_base")!;
    expect(checkValue(def, "https://api.stripe.com")).toBeNull();
    expect(checkValue(def, "https://stripe.example.test")).toMatch(/api\.stripe\.com/);
    expect(checkValue(def, "http://127.0.0.1:9", { allowPrivateUrls: true })).toBeNull();
    const user = await newUser();
    const before = standIn().requests.length;
    const refused = await as(user, { ALLOW_PRIVATE_URLS: "false" }).POST("/billing/purchase-choices", { body: { plan_id: "team", interval: "month" } });
    expect(expectProblem(refused, 422, "validation-error").errors?.[0]).toMatchObject({ location: "body.plan_id", message: "Needs a payment provider" });
    expect(standIn().requests.length).toBe(before);
  });

  it("are read on every use, not kept per isolate: a saved change applies at once", async () => {
    // Inside a transaction that is rolled back, so no other test ever sees billing on.
    const seen = await withDb((db) =>
      db
        .transaction(async (tx) => {
          const base = { ...env } as Env;
          const before = (await billingSettings(base, tx)).enabled;
          await tx.delete(instanceSettings).where(eq(instanceSettings.key, "billing_enabled"));
          await tx.insert(instanceSettings).values({ key: "billing_enabled", value: "true" });
          const after = (await billingSettings(base, tx)).enabled;
          throw Object.assign(new Error("rollback"), { seen: { before, after } });
        })
        .catch((e: { seen?: { before: boolean; after: boolean } }) => e.seen),
    );
    expect(seen).toEqual({ before: false, after: true });
  });
});
