import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { audit } from "../../lib/audit";
import { ensurePlanCheckoutSession, recordPlanCheckout, type PlanCheckoutRow } from "../../lib/billing/plan-checkout";
import { purchaseFacts } from "../../lib/billing/purchase";
import { canonicalJson, sha256Hex } from "../../lib/crypto";
import { publicBaseUrl } from "../../lib/env";
import { signedIn } from "../../lib/http/access";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { ownerWithProvider } from "./owner";
import { PlanCheckout, PlanCheckoutRequest } from "./schemas";
import { continuationOr422 } from "./validate-purchase-choice";

export const route = createRoute({
  method: "post",
  path: "/billing/checkout",
  operationId: "checkoutPlan",
  tags: ["billing"],
  summary: "Buy or change the plan of an existing organization",
  description:
    "Owner of the organization, with a continuation token from POST /billing/purchase-choices. A trial needing no payment starts at once (`status: completed`); a paid plan opens a hosted Stripe Checkout Session (`checkout_url`), and the organization moves to the plan when Stripe's webhook says it was paid (an abandoned checkout changes nothing). The same body again → 200 with the same checkout. " +
    "409 `payment-provider-not-configured` without Stripe's keys; 409 `conflict` when the organization already pays through Stripe (change plans in the portal, POST /billing/portal) or the choice's price or trial no longer holds for this organization; 422 `invalid-continuation` for a bad token; 502 when Stripe cannot be reached (retry the same request).",
  request: { body: jsonBody(PlanCheckoutRequest) },
  responses: {
    200: jsonResponse(PlanCheckout, "An exact retry: the same checkout"),
    201: jsonResponse(PlanCheckout, "The checkout"),
    ...problems(400, 401, 403, 404, 409, 413, 422, 502),
  },
});

// Any signed-in caller; the handler requires an owner of the organization named in the body (404/403).
export const access = signedIn();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  const q = db(c);
  const stripe = await ownerWithProvider(c.env, q, user.id, body.organization_id);
  const chosen = await continuationOr422(c.env, user.id, body.continuation_token);
  // The token's facts were worked out for the caller's personal organization: they must hold for this one too.
  const facts = await purchaseFacts(c.env, q, body.organization_id, chosen.plan_id, chosen.interval);
  if (facts.price.amount_minor !== chosen.price.amount_minor || facts.trial.eligible !== chosen.trial.eligible) {
    throw new ApiError("conflict", { detail: "The purchase choice's price or trial does not hold for this organization; make a new purchase choice." });
  }
  const requestHash = await sha256Hex(canonicalJson({ organization_id: body.organization_id, continuation_token: body.continuation_token }));
  const outcome = await q.transaction(async (tx) => {
    const recorded = await recordPlanCheckout(tx, { userId: user.id, organizationId: body.organization_id, facts, requestHash });
    if (recorded.created) {
      await audit(tx, { ...auditActor(c), action: "billing.checkout.create", targetType: "plan_checkout", targetId: recorded.checkout.id });
    }
    return recorded;
  });
  let checkout: PlanCheckoutRow = outcome.checkout;
  if (checkout.status === "open" && !checkout.providerSessionId) {
    checkout = await ensurePlanCheckoutSession(q, stripe, checkout, { email: user.email, baseUrl: publicBaseUrl(c.env, c.req.url) });
  }
  const response = withSchema(c, PlanCheckout, {
    id: checkout.id,
    organization_id: checkout.organizationId,
    status: checkout.status,
    plan_id: checkout.planId,
    interval: checkout.interval,
    checkout_url: checkout.checkoutUrl,
    expires_at: checkout.expiresAt.toISOString(),
  });
  return outcome.created ? c.json(response, 201) : c.json(response, 200);
};
