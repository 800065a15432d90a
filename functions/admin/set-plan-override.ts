import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { subscriptions, users } from "../../db/schema";
import { audit } from "../../lib/audit";
import { endCurrentSubscription } from "../../lib/billing/checkout";
import { currentSubscription, lockOrganization, personalOrganizationId } from "../../lib/billing/organizations";
import { findPlan } from "../../lib/billing/plans";
import { chargedByStripe, setCancelAtPeriodEnd } from "../../lib/billing/provider-subscription";
import { stripeConfig } from "../../lib/billing/purchase";
import { applySubscription } from "../../lib/billing/stripe-events";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError, notFound } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { responseObject, withSchema } from "../../lib/http/schema-ref";
import { newId } from "../../lib/ids";
import { IdParam, OptionalTimestamp } from "../../lib/schemas/common";
import { instanceAdmin } from "../../lib/http/access";

export const PlanOverrideRequest = z
  .object({
    plan_id: z.string().max(100).openapi({ description: 'A plan id; `""` removes the override' }),
    reason: z.string().trim().max(500).optional().openapi({ description: "Why (kept with the subscription, not in the audit trail)" }),
  })
  .openapi("PlanOverrideRequest");

export const PlanOverrideResponse = responseObject("PlanOverrideResponse", {
  user_id: z.string(),
  organization_id: z.string(),
  plan_id: z.string().openapi({ description: 'The override\'s plan, or `""` once removed' }),
  subscription: z
    .object({ id: z.string(), status: z.string(), provider: z.string(), current_period_end: OptionalTimestamp })
    .nullable()
    .openapi({ description: "The admin-managed subscription (ended, status `canceled`, after a removal); null when there was none to remove" }),
});

export const route = createRoute({
  method: "put",
  path: "/admin/users/{id}/plan-override",
  operationId: "setPlanOverride",
  tags: ["admin"],
  summary: "Set a user plan override (instance administrators)",
  description:
    'Puts the user\'s personal organization on `plan_id` with an admin-managed subscription (provider `admin`), bypassing checkout and ending any other current subscription. An organization paying through Stripe: Stripe is first asked to end that subscription at its period end (nothing is charged after it; GET /billing/status says `cancel_at_period_end: true` until it has ended); if Stripe cannot be asked (502) or is not configured (409 `payment-provider-not-configured`), nothing changes. `plan_id: ""` removes the override and ends that subscription. While billing is off every organization stays on `self_hosted`; the override applies once billing is on.',
  request: { params: z.object({ id: IdParam }), body: jsonBody(PlanOverrideRequest) },
  responses: { 200: jsonResponse(PlanOverrideResponse, "The override in force, or its removal"), ...problems(400, 401, 403, 404, 409, 413, 422, 502) },
});

type SubRow = typeof subscriptions.$inferSelect;
const view = (s: SubRow | null) =>
  s ? { id: s.id, status: s.status, provider: s.provider, current_period_end: s.currentPeriodEnd?.toISOString() ?? null } : null;

export const access = instanceAdmin();

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const actor = currentUser(c);
  if (body.plan_id !== "" && !findPlan(body.plan_id)) {
    throw new ApiError("validation-error", { detail: "No such plan.", errors: [{ location: "body.plan_id", message: "Unknown plan", value: body.plan_id }] });
  }
  const database = db(c);
  // Stripe is asked before anything changes here: an override never leaves a paying organization being charged.
  const wound = body.plan_id === "" ? null : await askStripeToEnd(c.env, database, id);
  const result = await database.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, id));
    if (!user) throw notFound("user");
    const organizationId = await personalOrganizationId(tx, user.id);
    await lockOrganization(tx, organizationId);
    const current = await currentSubscription(tx, organizationId);
    if (body.plan_id === "") {
      const ended = current?.provider === "admin" ? await endCurrentSubscription(tx, organizationId) : null;
      if (ended) await audit(tx, { ...auditActor(c), action: "billing.plan_override.remove", targetType: "organization", targetId: organizationId });
      return { organizationId, planId: "", subscription: ended };
    }
    if (current?.provider === "admin" && current.planId === body.plan_id && current.status === "active") {
      return { organizationId, planId: body.plan_id, subscription: current };
    }
    const ended = await endCurrentSubscription(tx, organizationId);
    // The replaced subscription keeps following Stripe (running until its period end), without being current.
    if (ended && wound && ended.providerSubscriptionId === wound.id) {
      await applySubscription(tx, { ...ended, status: current?.status ?? ended.status }, wound, Math.floor((ended.providerEventAt?.getTime() ?? 0) / 1000));
    }
    const [created] = await tx
      .insert(subscriptions)
      .values({ id: newId("sub"), organizationId, planId: body.plan_id, status: "active", provider: "admin", reason: body.reason || null, createdBy: actor.id })
      .returning();
    await audit(tx, { ...auditActor(c), action: "billing.plan_override.set", targetType: "organization", targetId: organizationId });
    return { organizationId, planId: body.plan_id, subscription: created };
  });
  return c.json(
    withSchema(c, PlanOverrideResponse, {
      user_id: id,
      organization_id: result.organizationId,
      plan_id: result.planId,
      subscription: view(result.subscription),
    }),
    200,
  );
};

/** When the user's organization pays through Stripe: ask Stripe to end that subscription at its period end. */
async function askStripeToEnd(env: AppEnv["Bindings"], q: ReturnType<typeof db>, userId: string) {
  const [user] = await q.select({ id: users.id }).from(users).where(eq(users.id, userId));
  if (!user) return null;
  const current = await currentSubscription(q, await personalOrganizationId(q, user.id));
  if (!chargedByStripe(current)) return null;
  const stripe = await stripeConfig(env, q);
  if (!stripe) {
    throw new ApiError("payment-provider-not-configured", {
      detail: "This organization pays through Stripe, which is not configured here, so its subscription cannot be ended: the override was not set.",
    });
  }
  return setCancelAtPeriodEnd(stripe, current.providerSubscriptionId, true, `herald-override-end-${current.id}`);
}
