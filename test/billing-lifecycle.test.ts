import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations, publications, subscriptions } from "../db/schema";
import { planOrThrow } from "../lib/billing/plans";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { env, newUser, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { clientWithEnv, expectData, expectProblem } from "./helpers/typed";

/**
 * CONTRACT §9 "Billing lifecycle": a trial ends at `current_period_end`, and monthly usage counts what was created
 * in the period. Billing is turned on through the environment of these calls only (other test files keep it off);
 * time moves by shifting the stored times back, since the database's clock decides.
 */
type User = Awaited<ReturnType<typeof newUser>>;

const billingEnv = { ...env, BILLING_ENABLED: "true" } as Env;
const on = (user: User) => clientWithEnv(user.token, billingEnv);

const personalOrg = (userId: string) =>
  withDb(async (db) => {
    const [row] = await db
      .select({ id: organizations.id })
      .from(organizations)
      .where(and(eq(organizations.ownerUserId, userId), eq(organizations.kind, "personal")));
    return row.id;
  });

describe("a trial ends at current_period_end", () => {
  it("trialing pro until its end; after it, without a paid subscription, free with free's limits", async () => {
    const user = await newUser();
    const asUser = on(user);
    const choice = expectData(await asUser.POST("/billing/purchase-choices", { body: { plan_id: "pro", interval: "month" } }), 201);
    expect(choice.trial).toEqual({ days: 14, eligible: true });
    expect(choice.payment).toEqual({ provider: "none", required_now: false });
    const first = expectData(
      await asUser.POST("/onboarding/first-workspace", { body: { workspace_name: "Trial", continuation_token: choice.continuation_token } }),
      201,
    );
    expect(first.checkout.status).toBe("completed");

    const trialing = expectData(await asUser.GET("/billing/status"));
    expect(trialing).toMatchObject({ plan_id: "pro", status: "trialing", provider: "none", limits: planOrThrow("pro").limits, access_restricted: false });
    const trialEnd = Date.parse(trialing.current_period_end ?? "");
    expect(trialEnd - Date.now()).toBeGreaterThan(13 * 24 * 3600 * 1000);
    // Pro allows a second workspace during the trial.
    expect((await asUser.POST("/workspaces", { body: { name: "Second" } })).response.status).toBe(201);

    // Fifteen days pass: every stored time of the subscription moves back (the database's clock stays).
    const org = await personalOrg(user.id);
    await withDb((db) =>
      db
        .update(subscriptions)
        .set({
          createdAt: sql`${subscriptions.createdAt} - interval '15 days'`,
          currentPeriodStart: sql`${subscriptions.currentPeriodStart} - interval '15 days'`,
          currentPeriodEnd: sql`${subscriptions.currentPeriodEnd} - interval '15 days'`,
          trialEnd: sql`${subscriptions.trialEnd} - interval '15 days'`,
        })
        .where(eq(subscriptions.organizationId, org)),
    );

    const ended = expectData(await asUser.GET("/billing/status"));
    expect(ended).toMatchObject({ plan_id: "free", status: "active", provider: null, limits: planOrThrow("free").limits, cancel_at_period_end: false });
    expect(Date.parse(ended.current_period_end ?? "")).toBeGreaterThan(Date.now());
    // Two workspaces on a plan that allows one: restricted, and a third is refused.
    expect(ended.usage.workspaces).toBe(2);
    expect(ended.access_restricted).toBe(true);
    const refused = expectProblem(await asUser.POST("/workspaces", { body: { name: "Third" } }), 403, "plan-limit-reached");
    expect(refused).toMatchObject({ limit: "workspaces", usage: 2, allowed: 1, plan_id: "free" });
    // A trial is once per organization: pro now needs payment, which this instance (no payment provider) cannot take.
    const again = expectProblem(await asUser.POST("/billing/purchase-choices", { body: { plan_id: "pro", interval: "month" } }), 422, "validation-error");
    expect(again.errors?.[0]).toMatchObject({ location: "body.plan_id", message: "Needs a payment provider" });

    // Billing off: self_hosted whatever happened to the trial.
    expect((await clientWithEnv(user.token, env).GET("/billing/status")).data?.plan_id).toBe("self_hosted");
  });
});

describe("monthly usage counts what was created in the period", () => {
  it("deleting publications after reaching publications_per_month gives nothing back: still 403 plan-limit-reached", async () => {
    const owner = await newUser();
    const asOwner = on(owner);
    const ws = expectData(await asOwner.POST("/workspaces", { body: { name: "Counted" } }), 201).id;
    const account = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
    const allowed = planOrThrow("free").limits.publications_per_month!;

    const made = expectData(
      await asOwner.POST("/publications", { body: { workspace_id: ws, source_text: "First", destinations: [{ social_account_id: account }] } }),
      201,
    );
    // The rest written behind the API's back: the creation is recorded however a row comes to be.
    await withDb((db) =>
      db
        .insert(publications)
        .values(Array.from({ length: allowed - 1 }, () => ({ id: newId("pub"), workspaceId: ws, status: "draft" as const, sourceText: "x" }))),
    );
    expect(expectData(await asOwner.GET("/billing/status")).usage.publications_per_month).toBe(allowed);

    const deleted = await asOwner.DELETE("/publications/{id}", {
      params: { path: { id: made.id }, query: { confirm: true, expected_revision: made.revision } },
    });
    expect(deleted.response.status).toBe(200);
    await withDb((db) => db.delete(publications).where(eq(publications.workspaceId, ws)));
    const left = await withDb((db) => db.select({ id: publications.id }).from(publications).where(eq(publications.workspaceId, ws)));
    expect(left).toEqual([]);

    const status = expectData(await asOwner.GET("/billing/status"));
    expect(status.usage.publications_per_month).toBe(allowed);
    const refused = expectProblem(
      await asOwner.POST("/publications", { body: { workspace_id: ws, source_text: "One more", destinations: [{ social_account_id: account }] } }),
      403,
      "plan-limit-reached",
    );
    expect(refused).toMatchObject({ limit: "publications_per_month", usage: allowed, allowed });
  });
});
