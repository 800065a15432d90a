import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { checkoutAttempts, workspaceMembers, workspaces } from "../../db/schema";
import { audit } from "../../lib/audit";
import { ensureStripeSession, recordCheckout, type CheckoutRow } from "../../lib/billing/checkout";
import { lockOrganization, personalOrganizationId } from "../../lib/billing/organizations";
import { stripeConfig } from "../../lib/billing/purchase";
import { canonicalJson, sha256Hex } from "../../lib/crypto";
import { publicBaseUrl } from "../../lib/env";
import { auditActor, currentUser, db, type AppEnv } from "../../lib/http/context";
import { ApiError } from "../../lib/http/errors";
import { jsonBody, jsonResponse } from "../../lib/http/openapi";
import { problems } from "../../lib/http/problem-schema";
import { withSchema } from "../../lib/http/schema-ref";
import { createWorkspace } from "../../lib/workspaces/create";
import { continuationOr422 } from "../billing/validate-purchase-choice";
import { FirstWorkspaceRequest, FirstWorkspaceResponse } from "./schemas";
import { signedIn } from "../../lib/http/access";

export const route = createRoute({
  method: "post",
  path: "/onboarding/first-workspace",
  operationId: "confirmFirstWorkspace",
  tags: ["onboarding"],
  summary: "Confirm the first workspace and purchase",
  description:
    "Creates the caller's first workspace (in their personal organization) and one checkout attempt for the confirmed purchase choice. The same body again → 200 with the same workspace and attempt; another name or token → 409; a caller who already owns a workspace → 409. A free plan or a trial needing no payment completes at once; otherwise the attempt is a hosted Stripe Checkout Session (`checkout_url`) completed by the Stripe webhook.",
  request: { body: jsonBody(FirstWorkspaceRequest) },
  responses: {
    200: jsonResponse(FirstWorkspaceResponse, "An exact retry: the same workspace and checkout attempt"),
    201: jsonResponse(FirstWorkspaceResponse, "The workspace and its checkout attempt"),
    ...problems(400, 401, 403, 409, 413, 422, 502, 503),
  },
});

// Any signed-in caller: it creates the caller's own first workspace.
export const access = signedIn();

const conflict = (detail: string) => new ApiError("conflict", { detail });

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const user = currentUser(c);
  const database = db(c);
  const requestHash = await sha256Hex(canonicalJson({ workspace_name: body.workspace_name, continuation_token: body.continuation_token }));

  const outcome = await database.transaction(async (tx) => {
    const organizationId = await personalOrganizationId(tx, user.id);
    // One confirmation per user at a time: a concurrent duplicate waits here, then finds the first one's attempt.
    await lockOrganization(tx, organizationId);
    const [existing] = await tx.select().from(checkoutAttempts).where(eq(checkoutAttempts.userId, user.id)).limit(1);
    if (existing) {
      if (existing.requestHash !== requestHash) throw conflict("Your first workspace was already confirmed with another name or purchase choice.");
      return { attempt: existing, created: false };
    }
    // Checked only for a new confirmation: an exact retry resumes even after the token's 30 minutes.
    const facts = await continuationOr422(c.env, user.id, body.continuation_token);
    const [owned] = await tx
      .select({ id: workspaceMembers.workspaceId })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.userId, user.id), eq(workspaceMembers.role, "owner")))
      .limit(1);
    if (owned) throw conflict("You already own a workspace; the first-workspace confirmation is only for new owners.");
    const workspace = await createWorkspace(tx, c.env, auditActor(c), body.workspace_name);
    const attempt = await recordCheckout(tx, { userId: user.id, organizationId, workspaceId: workspace.id, facts, requestHash });
    await audit(tx, { ...auditActor(c), workspaceId: workspace.id, action: "billing.checkout.create", targetType: "checkout_attempt", targetId: attempt.id });
    if (attempt.status === "completed") {
      await audit(tx, {
        ...auditActor(c),
        workspaceId: workspace.id,
        action: "billing.checkout.complete",
        targetType: "checkout_attempt",
        targetId: attempt.id,
      });
    }
    return { attempt, created: true };
  });

  let attempt: CheckoutRow = outcome.attempt;
  if (attempt.provider === "stripe" && attempt.status === "open" && !attempt.providerSessionId) {
    const stripe = await stripeConfig(c.env, database);
    if (!stripe) throw new ApiError("service-unavailable", { detail: "The payment provider is no longer configured; the checkout cannot be opened." });
    attempt = await ensureStripeSession(database, stripe, attempt, { email: user.email, baseUrl: publicBaseUrl(c.env, c.req.url) });
  }
  const [workspace] = await database.select().from(workspaces).where(eq(workspaces.id, attempt.workspaceId));
  const [member] = await database
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspace.id), eq(workspaceMembers.userId, user.id)));
  const response = withSchema(c, FirstWorkspaceResponse, {
    workspace: {
      id: workspace.id,
      name: workspace.name,
      organization_id: workspace.organizationId,
      role: member?.role ?? "owner",
      revision: workspace.revision,
      created_at: workspace.createdAt.toISOString(),
      updated_at: workspace.updatedAt.toISOString(),
    },
    checkout: {
      id: attempt.id,
      status: attempt.status,
      plan_id: attempt.planId,
      interval: attempt.interval,
      checkout_url: attempt.checkoutUrl,
      expires_at: attempt.expiresAt.toISOString(),
    },
  });
  return outcome.created ? c.json(response, 201) : c.json(response, 200);
};
