import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IdParam, IntegerMap, OptionalTimestamp } from "../../lib/schemas/common";

const Int = z.number().int();

/** Cost figures in millionths of a US dollar, with what is reserved for work in progress. */
const costFields = {
  cost_microusd: Int,
  event_count: Int,
  units: Int,
  reserved_cost_microusd: Int,
  reserved_event_count: Int,
  reserved_units: Int,
};

/** SPEC.md 2.9 ProviderCost: spending on one paid provider (e.g. an AI API) this period. */
export const ProviderCost = z
  .object({
    provider: z.string(),
    currency: z.string().openapi({ example: "USD" }),
    period_start: z.string(),
    pricing_source_url: z.string().nullable(),
    budget_microusd: Int.nullable(),
    ...costFields,
    operations: z.array(z.object({ operation: z.string(), ...costFields }).openapi("ProviderOperationCost")),
  })
  .openapi("ProviderCost");

/** SPEC.md 2.9 BillingStatusResponse. */
export const BillingStatusResponse = responseObject("BillingStatusResponse", {
  organization_id: z.string(),
  workspace_id: z.string().nullable(),
  plan_id: z.string(),
  status: z.string(),
  provider: z.string().nullable().openapi({ description: "Billing provider, when the plan is paid through one" }),
  access_restricted: z.boolean(),
  can_manage_billing: z.boolean(),
  cancel_at_period_end: z.boolean(),
  billing_contact_email: z.string().nullable(),
  period_start: OptionalTimestamp,
  current_period_end: OptionalTimestamp,
  past_due_since: OptionalTimestamp,
  limits: IntegerMap.openapi({ description: "Plan limits by name" }),
  usage: IntegerMap.openapi({ description: "Usage by the same names" }),
  provider_costs: z.array(ProviderCost),
});

export const IntervalEnum = z.enum(["month", "year"]);

/** CONTRACT.md §8 purchase choice: plan, price, trial, payment and expiry facts with a signed continuation token. */
export const PurchaseChoice = responseObject("PurchaseChoice", {
  plan_id: z.string(),
  interval: IntervalEnum,
  price: z.object({ amount_minor: Int.openapi({ description: "Minor units of `currency` (cents)" }), currency: z.string() }),
  trial: z.object({ days: Int, eligible: z.boolean() }),
  payment: z.object({
    provider: z.string().openapi({ description: "`stripe`, or `none` when nothing is paid through a provider" }),
    required_now: z.boolean(),
  }),
  expires_at: z.string().datetime(),
  continuation_token: z.string().openapi({ description: "Integrity-protected; send it to validate or to POST /onboarding/first-workspace within 30 minutes" }),
});

export const PurchaseChoiceRequest = z.object({ plan_id: z.string().min(1).max(100), interval: IntervalEnum }).openapi("PurchaseChoiceRequest");

export const ContinuationRequest = z.object({ continuation_token: z.string().min(1).max(4000) }).openapi("ContinuationRequest");

export const StripeWebhookReceipt = responseObject("StripeWebhookReceipt", {
  received: z.boolean(),
  duplicate: z.boolean().openapi({ description: "The event id was applied before; nothing changed" }),
});

/** CONTRACT §9: the organization whose billing an owner manages. */
export const OrganizationBillingRequest = z
  .object({ organization_id: IdParam.openapi({ description: "Organization ID (the caller must own it)" }) })
  .openapi("OrganizationBillingRequest");

export const PlanCheckoutRequest = z
  .object({
    organization_id: IdParam.openapi({ description: "Organization ID (the caller must own it)" }),
    continuation_token: z.string().min(1).max(4000).openapi({ description: "From POST /billing/purchase-choices, within 30 minutes" }),
  })
  .openapi("PlanCheckoutRequest");

/** A checkout of an existing organization (CONTRACT §9 POST /billing/checkout). */
export const PlanCheckout = responseObject("PlanCheckout", {
  id: z.string(),
  organization_id: z.string(),
  status: z.enum(["open", "completed", "expired"]),
  plan_id: z.string(),
  interval: IntervalEnum,
  checkout_url: z.string().nullable().openapi({ description: "Stripe's hosted checkout page while payment is needed, else null" }),
  expires_at: z.string().datetime(),
});

export const BillingPortalSession = responseObject("BillingPortalSession", {
  url: z.string().openapi({ description: "Stripe's customer portal for this organization (short-lived; open it at once)" }),
});

/** The organization's subscription after a cancel or resume. */
export const BillingSubscription = responseObject("BillingSubscription", {
  organization_id: z.string(),
  subscription_id: z.string(),
  plan_id: z.string(),
  status: z.string(),
  provider: z.string(),
  cancel_at_period_end: z.boolean(),
  current_period_end: OptionalTimestamp,
});
