import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { organizations, users } from "../../db/schema";
import { accessRestricted, foldProviderCosts } from "../../lib/billing/logic";
import { organizationOfWorkspace, organizationRole, personalOrganizationId, requireOrganizationMember } from "../../lib/billing/organizations";
import { replacedSubscriptionEnding } from "../../lib/billing/provider-subscription";
import { organizationBilling, organizationUsage, providerCostRows } from "../../lib/billing/state";
import { currentUser, db, type AppEnv } from "../../lib/http/context";
import { notFound } from "../../lib/http/errors";
import { jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { IdParam, WorkspaceIdField } from "../../lib/schemas/common";
import { BillingStatusResponse } from "./schemas";
import { inQuery, workspaceRole } from "../../lib/http/access";

export const route = createRoute({
  method: "get",
  path: "/billing/status",
  operationId: "getBillingStatus",
  tags: ["billing"],
  summary: "Get billing status",
  description:
    "For the workspace's organization, the given organization, or the caller's personal one when neither is given. Billing off (the default): plan `self_hosted`, `limits` empty, usage still counted. Billing on: a trial ends at its `current_period_end` (the database's time decides); after it, without a paid subscription, the organization is on `free`. `publications_per_month` and `builds_per_month` count what was created in the period, deleted or not. `cancel_at_period_end`: the subscription will not renew; under an administrator's override it says the Stripe subscription the override replaced was asked to end at its period end and has not yet. `can_manage_billing` is true for the organization's owners.",
  request: {
    query: z.object({
      workspace_id: WorkspaceIdField.optional(),
      organization_id: IdParam.optional().openapi({ description: "Organization ID" }),
    }),
  },
  responses: { 200: jsonResponse(BillingStatusResponse, "Plan, limits, usage and costs"), ...problems(401, 403, 404, 422) },
});

export const access = workspaceRole("viewer", inQuery("workspace_id", { optional: true }));

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { workspace_id, organization_id } = c.req.valid("query");
  const user = currentUser(c);
  const q = db(c);
  let organizationId: string;
  if (workspace_id !== undefined) {
    organizationId = await organizationOfWorkspace(q, workspace_id);
    if (organization_id !== undefined && organization_id !== organizationId) throw notFound("organization");
  } else if (organization_id !== undefined) {
    await requireOrganizationMember(q, user.id, organization_id);
    organizationId = organization_id;
  } else {
    organizationId = await personalOrganizationId(q, user.id);
  }

  const billing = await organizationBilling(c.env, q, organizationId);
  const now = billing.now;
  const sub = billing.subscription;
  const [usage, costRows, role, replacedEnding] = await Promise.all([
    organizationUsage(q, organizationId, billing.periodStart),
    providerCostRows(q, organizationId, billing.periodStart),
    organizationRole(q, user.id, organizationId),
    sub?.provider === "admin" ? replacedSubscriptionEnding(q, organizationId, now) : false,
  ]);
  const canManage = role === "owner";
  let contact: string | null = null;
  if (canManage) {
    const [owner] = await q
      .select({ email: users.email })
      .from(users)
      .innerJoin(organizations, eq(organizations.ownerUserId, users.id))
      .where(eq(organizations.id, organizationId));
    contact = owner?.email ?? null;
  }
  const pastDueSince = sub?.pastDueSince ?? null;
  const periodStartIso = billing.periodStart.toISOString();
  return c.json(
    withSchema(c, BillingStatusResponse, {
      organization_id: organizationId,
      workspace_id: workspace_id ?? null,
      plan_id: billing.plan.id,
      status: billing.status,
      provider: billing.provider,
      access_restricted: billing.billingEnabled && accessRestricted({ limits: billing.plan.limits, usage, status: billing.status, pastDueSince, now }),
      can_manage_billing: canManage,
      cancel_at_period_end: (sub?.cancelAtPeriodEnd ?? false) || replacedEnding,
      billing_contact_email: contact,
      period_start: periodStartIso,
      current_period_end: billing.periodEnd.toISOString(),
      past_due_since: pastDueSince?.toISOString() ?? null,
      limits: { ...billing.plan.limits },
      usage,
      provider_costs: foldProviderCosts(costRows, { periodStart: periodStartIso, budgetMicrousd: billing.plan.limits.ai_budget_microusd ?? null }),
    }),
    200,
  );
};
