import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { billingWebhookEvents } from "../db/schema";
import { env, newUser, withDb } from "./helpers/harness";
import { useStripeBilling } from "./helpers/stripe-billing";
import { clientWithEnv, expectData, expectProblem } from "./helpers/typed";

/**
 * CONTRACT §9's lifecycle operations (POST /billing/checkout, /billing/portal, /billing/cancel, /billing/resume),
 * against a stand-in for Stripe's API (test/peers/stripe-api.ts: Stripe cannot run here) reached through Stripe's SDK.
 */
const { stripe: standIn, as, deliver, statusOf, requestsTo, personalOrg, payingUser } = useStripeBilling();

describe("checkout, portal, cancel and resume (CONTRACT §9)", () => {
  it("without a payment provider each answers 409 payment-provider-not-configured; another's organization is 404", async () => {
    const [user, outsider] = await Promise.all([newUser(), newUser()]);
    const org = await personalOrg(user.id);
    const noProvider = clientWithEnv(user.token, { ...env, BILLING_ENABLED: "true" });
    const choice = expectData(await noProvider.POST("/billing/purchase-choices", { body: { plan_id: "pro", interval: "month" } }), 201);
    const body = { organization_id: org };
    expectProblem(
      await noProvider.POST("/billing/checkout", { body: { ...body, continuation_token: choice.continuation_token } }),
      409,
      "payment-provider-not-configured",
    );
    expectProblem(await noProvider.POST("/billing/portal", { body }), 409, "payment-provider-not-configured");
    expectProblem(await noProvider.POST("/billing/cancel", { body }), 409, "payment-provider-not-configured");
    expectProblem(await noProvider.POST("/billing/resume", { body }), 409, "payment-provider-not-configured");
    expectProblem(await as(outsider).POST("/billing/cancel", { body }), 404, "not-found");
    expectProblem(await as(outsider).POST("/billing/portal", { body }), 404, "not-found");
  });

  it("an existing organization buys a paid plan: it moves when Stripe says it was paid; its subscription's events wait until then", async () => {
    const user = await newUser();
    expectData(await as(user).POST("/workspaces", { body: { name: "Existing" } }), 201);
    const org = await personalOrg(user.id);
    const choice = expectData(await as(user).POST("/billing/purchase-choices", { body: { plan_id: "team", interval: "month" } }), 201);
    const body = { organization_id: org, continuation_token: choice.continuation_token };
    const checkout = expectData(await as(user).POST("/billing/checkout", { body }), 201);
    expect(checkout).toMatchObject({
      organization_id: org,
      status: "open",
      plan_id: "team",
      checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//),
    });
    expect(expectData(await as(user).POST("/billing/checkout", { body })).id).toBe(checkout.id);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "free", status: "active", provider: null });

    const session = [...standIn().sessions.values()].find((s) => s.client_reference_id === checkout.id)!;
    const [created, completed] = standIn().complete(session.id);
    // The subscription's event before its checkout's completion: not applicable yet, not recorded (Stripe sends it again).
    expectProblem(await deliver(created), 409, "conflict");
    expect(await withDb((db) => db.select().from(billingWebhookEvents).where(eq(billingWebhookEvents.id, created.id)))).toEqual([]);
    expect(expectData(await deliver(completed)).duplicate).toBe(false);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "team", status: "active", provider: "stripe" });
    // Stripe's second delivery of the early event: applicable now, and older than the state fetched at completion.
    expect(expectData(await deliver(created)).duplicate).toBe(false);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "team", status: "active" });
  });

  it("cancel and resume set cancel_at_period_end at Stripe and in the status; the portal opens for the customer; a paying organization changes plan there", async () => {
    const { user, stripeSubscriptionId } = await payingUser("team");
    const org = await personalOrg(user.id);
    const canceled = expectData(await as(user).POST("/billing/cancel", { body: { organization_id: org } }));
    expect(canceled).toMatchObject({ organization_id: org, plan_id: "team", provider: "stripe", status: "active", cancel_at_period_end: true });
    const asked = requestsTo("POST", new RegExp(`^/v1/subscriptions/${stripeSubscriptionId}$`)).at(-1)!;
    expect(asked.params).toEqual({ cancel_at_period_end: "true" });
    expect(asked.headers["idempotency-key"]).toMatch(/^herald-cancel-sub_/);
    expect(standIn().subscriptions.get(stripeSubscriptionId)?.cancel_at_period_end).toBe(true);
    expect(expectData(await statusOf(user))).toMatchObject({ plan_id: "team", cancel_at_period_end: true });

    expect(expectData(await as(user).POST("/billing/resume", { body: { organization_id: org } })).cancel_at_period_end).toBe(false);
    expect(standIn().subscriptions.get(stripeSubscriptionId)?.cancel_at_period_end).toBe(false);
    expect(expectData(await statusOf(user)).cancel_at_period_end).toBe(false);

    const portal = expectData(await as(user).POST("/billing/portal", { body: { organization_id: org } }));
    expect(portal.url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/bps_/);
    const portalRequest = requestsTo("POST", /^\/v1\/billing_portal\/sessions$/).at(-1)!;
    expect(portalRequest.params).toMatchObject({ customer: standIn().subscriptions.get(stripeSubscriptionId)?.customer });
    expect(portalRequest.headers["idempotency-key"]).toMatch(/^herald-portal-/);

    const choice = expectData(await as(user).POST("/billing/purchase-choices", { body: { plan_id: "pro", interval: "month" } }), 201);
    expectProblem(await as(user).POST("/billing/checkout", { body: { organization_id: org, continuation_token: choice.continuation_token } }), 409, "conflict");
  });
});
