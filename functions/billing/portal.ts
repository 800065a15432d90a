import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { providerCustomerOf } from "../../lib/billing/provider-subscription";
import { paymentProviderFailed, stripeClient } from "../../lib/billing/stripe-client";
import { publicBaseUrl } from "../../lib/env";
import { signedIn } from "../../lib/http/access";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { ownerWithProvider } from "./owner";
import { BillingPortalSession, OrganizationBillingRequest } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/billing/portal",
  operationId: "openBillingPortal",
  tags: ["billing"],
  summary: "Open the payment provider's customer portal",
  description:
    "Owner of the organization. A Stripe Billing Portal session for the organization's Stripe customer (payment methods, invoices, plan changes); open `url` at once. 409 `payment-provider-not-configured` without Stripe's keys; 409 `conflict` when the organization has not yet paid through Stripe; 502 when Stripe cannot be reached.",
  request: { body: jsonBody(OrganizationBillingRequest) },
  responses: { 200: jsonResponse(BillingPortalSession, "The portal session's URL"), ...problems(400, 401, 403, 404, 409, 413, 422, 502) },
});

// Any signed-in caller; the handler requires an owner of the organization named in the body (404/403).
export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { organization_id } = c.req.valid("json");
  const q = db(c);
  const stripe = await ownerWithProvider(c.env, q, currentUser(c).id, organization_id);
  const customer = await providerCustomerOf(q, organization_id);
  if (!customer) throw new ApiError("conflict", { detail: "The organization has not yet paid through Stripe, so it has no customer portal yet." });
  const client = await stripeClient(stripe);
  let url: string;
  try {
    const session = await client.billingPortal.sessions.create(
      { customer, return_url: `${publicBaseUrl(c.env, c.req.url)}/billing/status?organization_id=${organization_id}` },
      // A portal session is short-lived and per visit: the key makes only the SDK's retries of this request safe.
      { idempotencyKey: `herald-portal-${c.get("requestId")}` },
    );
    url = session.url;
  } catch (err) {
    throw paymentProviderFailed(err, "open the customer portal");
  }
  return c.json(withSchema(c, BillingPortalSession, { url }), 200);
};
