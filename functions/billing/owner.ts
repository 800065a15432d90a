import { requireOrganizationOwner } from "../../lib/billing/organizations";
import { stripeConfig } from "../../lib/billing/purchase";
import type { StripeConfig } from "../../lib/billing/settings";
import type { Queryable } from "../../lib/db/client";
import type { AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";

/**
 * What the lifecycle operations (checkout, portal, cancel, resume) need first: an owner of the organization (404 when
 * not in it, 403 when a member only), then a payment provider (409 `payment-provider-not-configured` without Stripe's
 * keys; they are read on every request).
 */
export async function ownerWithProvider(env: AppEnv["Bindings"], q: Queryable, userId: string, organizationId: string): Promise<StripeConfig> {
  await requireOrganizationOwner(q, userId, organizationId);
  const stripe = await stripeConfig(env, q);
  if (!stripe) {
    throw new ApiError("payment-provider-not-configured", {
      detail: "No payment provider is configured on this instance (Stripe's keys in the instance settings), so billing cannot be changed here.",
    });
  }
  return stripe;
}
