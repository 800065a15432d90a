import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IntegerMap, OptionalTimestamp } from "../../lib/schemas/common";

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
