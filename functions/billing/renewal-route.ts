import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { setRenewal } from "../../lib/billing/renewal";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { ownerWithProvider } from "./owner";
import { BillingSubscription, OrganizationBillingRequest } from "./schemas";

/** POST /billing/cancel and /billing/resume: the same operation with `cancel_at_period_end` true or false. */
export function renewalOperation(cancel: boolean) {
  const route = createRoute({
    method: "post",
    path: cancel ? "/billing/cancel" : "/billing/resume",
    operationId: cancel ? "cancelSubscription" : "resumeSubscription",
    tags: ["billing"],
    summary: cancel ? "Cancel the subscription at its period end" : "Resume a subscription set to cancel",
    description: cancel
      ? "Owner of the organization. Asks Stripe to end the organization's paid subscription at the end of its period (`cancel_at_period_end: true`): nothing more is charged, and the plan stays until then. 409 `payment-provider-not-configured` without Stripe's keys; 409 `conflict` when nothing is paid through Stripe; 502 when Stripe cannot be reached (nothing changes)."
      : "Owner of the organization. Asks Stripe to keep renewing a subscription set to cancel at its period end (`cancel_at_period_end: false`). 409 `payment-provider-not-configured` without Stripe's keys; 409 `conflict` when nothing is paid through Stripe; 502 when Stripe cannot be reached (nothing changes).",
    request: { body: jsonBody(OrganizationBillingRequest) },
    responses: { 200: jsonResponse(BillingSubscription, "The subscription as Stripe now has it"), ...problems(400, 401, 403, 404, 409, 413, 422, 502) },
  });

  const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
    const { organization_id } = c.req.valid("json");
    const q = db(c);
    const stripe = await ownerWithProvider(c.env, q, currentUser(c).id, organization_id);
    const sub = await setRenewal(q, stripe, organization_id, cancel);
    await audit(q, {
      ...auditActor(c),
      action: cancel ? "billing.subscription.cancel" : "billing.subscription.resume",
      targetType: "subscription",
      targetId: sub.id,
    });
    return c.json(
      withSchema(c, BillingSubscription, {
        organization_id,
        subscription_id: sub.id,
        plan_id: sub.planId,
        status: sub.status,
        provider: sub.provider,
        cancel_at_period_end: sub.cancelAtPeriodEnd,
        current_period_end: sub.currentPeriodEnd?.toISOString() ?? null,
      }),
      200,
    );
  };
  return { route, handler };
}
