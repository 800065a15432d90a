import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
  billingWebhookEvents,
  checkoutAttempts,
  organizationMembers,
  organizations,
  providerCostEvents,
  publicationBuilds,
  publications,
  socialAccounts,
  subscriptions,
  workspaceMembers,
  workspaces,
} from "../db/schema";
import { signContinuation } from "../lib/billing/continuation";
import { planOrThrow } from "../lib/billing/plans";
import { stripeSignatureHeader } from "../lib/billing/stripe";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { api, env, expectProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { call, fixture, insertMediaRows, startMediaStorage, upload, type MediaStorage } from "./helpers/media";
import { newAccount } from "./helpers/publishing";

/**
 * Billing (CONTRACT.md §8). Instance settings are global to the shared test database, so this file never
 * saves one: the tests that need billing on or Stripe configured pass those settings as environment
 * variables (which win over saved values) in the env of their own gateway calls only. Other test files
 * keep seeing billing off.
 */
type User = Awaited<ReturnType<typeof newUser>>;

const billingEnv = { ...env, BILLING_ENABLED: "true" } as Env;
const on = (method: string, path: string, user: User | null, json?: unknown, headers: Record<string, string> = {}) =>
  call(billingEnv, method, path, { token: user?.token, json, headers });

const SPEC_FIELDS = [
  "access_restricted",
  "can_manage_billing",
  "cancel_at_period_end",
  "billing_contact_email",
  "current_period_end",
  "organization_id",
  "past_due_since",
  "period_start",
  "plan_id",
  "provider",
  "status",
  "workspace_id",
  "limits",
  "usage",
  "provider_costs",
];

const personalOrg = (userId: string) =>
  withDb(
    async (db) =>
      (
        await db
          .select({ id: organizations.id })
          .from(organizations)
          .where(and(eq(organizations.ownerUserId, userId), eq(organizations.kind, "personal")))
      )[0]?.id,
  );

/** Usage of an organization counted here with plain SQL, independently of lib/billing. */
async function sqlUsage(orgId: string, since: string) {
  return withDb(async (db) => {
    const n = async (q: ReturnType<typeof sql>) => Number(((await db.execute(q)).rows[0] as { n: string }).n);
    const ws = sql`select id from workspaces where organization_id = ${orgId}`;
    return {
      publications_per_month: await n(sql`select count(*) n from publications where workspace_id in (${ws}) and created_at >= ${since}::timestamptz`),
      social_accounts: await n(sql`select count(*) n from social_accounts where workspace_id in (${ws}) and disconnected_at is null`),
      workspaces: await n(sql`select count(*) n from workspaces where organization_id = ${orgId}`),
      members: await n(sql`select count(distinct user_id) n from workspace_members where workspace_id in (${ws})`),
      storage_bytes: await n(sql`select coalesce(sum(size), 0) n from media where workspace_id in (${ws})`),
      builds_per_month: await n(sql`select count(*) n from publication_builds where workspace_id in (${ws}) and created_at >= ${since}::timestamptz`),
      ai_budget_microusd: await n(
        sql`select coalesce(sum(cost_microusd), 0) n from provider_cost_events where workspace_id in (${ws}) and status <> 'released' and created_at >= ${since}::timestamptz`,
      ),
    };
  });
}

const insertBuilds = (ws: string, count: number) =>
  withDb((db) => db.insert(publicationBuilds).values(Array.from({ length: count }, () => ({ id: newId("bld"), workspaceId: ws, input: {} }))));
const insertPublications = (ws: string, count: number) =>
  withDb((db) =>
    db.insert(publications).values(Array.from({ length: count }, () => ({ id: newId("pub"), workspaceId: ws, status: "draft" as const, sourceText: "x" }))),
  );
/** Rows of a workspace-scoped table in one workspace. */
const countWhere = (table: "publications" | "social_accounts" | "publication_builds" | "media", ws: string) =>
  withDb(async (db) =>
    Number(((await db.execute(sql`select count(*) n from ${sql.identifier(table)} where workspace_id = ${ws}`)).rows[0] as { n: string }).n),
  );

describe("organizations", () => {
  it("every new user has a personal organization it owns; workspaces default to it", async () => {
    const user = await newUser();
    const org = await personalOrg(user.id);
    expect(org).toMatch(/^org_/);
    const members = await withDb((db) => db.select().from(organizationMembers).where(eq(organizationMembers.organizationId, org!)));
    expect(members).toEqual([expect.objectContaining({ userId: user.id, role: "owner" })]);

    const created = await api("POST", "/workspaces", { token: user.token, json: { name: "Mine" } });
    expect(created.status, created.text).toBe(201);
    const [row] = await withDb((db) => db.select().from(workspaces).where(eq(workspaces.id, created.body.id)));
    expect(row.organizationId).toBe(org);
  });

  it("POST /workspaces takes an organization the caller belongs to; another's is 404 and nothing is created", async () => {
    const [a, b] = await Promise.all([newUser(), newUser()]);
    const orgA = await personalOrg(a.id);
    const orgB = await personalOrg(b.id);
    const mine = await api("POST", "/workspaces", { token: a.token, json: { name: "Explicit", organization_id: orgA } });
    expect(mine.status, mine.text).toBe(201);
    expectProblem(await api("POST", "/workspaces", { token: a.token, json: { name: "Theirs", organization_id: orgB } }), 404, "not-found");
    expectProblem(await api("POST", "/workspaces", { token: a.token, json: { name: "Nowhere", organization_id: "org_nope" } }), 404, "not-found");
    const count = await withDb(async (db) => (await db.select().from(workspaces).where(eq(workspaces.organizationId, orgB!))).length);
    expect(count).toBe(0);
  });
});

describe("GET /billing/status with billing off (the default)", () => {
  it("self_hosted, no limits, nothing restricted; usage counted as SQL counts it; provider costs from the ledger", async () => {
    const [owner, editor, outsider] = await Promise.all([newUser(), newUser(), newUser()]);
    const ws = (await api("POST", "/workspaces", { token: owner.token, json: { name: "Counted" } })).body.id as string;
    await api("POST", `/workspaces/${ws}/members`, { token: owner.token, json: { user_id: editor.id, role: "editor" } });
    const hook = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
    await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/other" });
    for (const text of ["One", "Two", "Three"]) {
      const res = await api("POST", "/publications", {
        token: editor.token,
        json: { workspace_id: ws, source_text: text, destinations: [{ social_account_id: hook }] },
      });
      expect(res.status, res.text).toBe(201);
    }
    await insertMediaRows(ws, [{ size: 1000 }, { size: 2345 }]);
    await insertBuilds(ws, 2);
    await withDb((db) =>
      db.insert(providerCostEvents).values([
        { id: newId("pce"), workspaceId: ws, provider: "openai-compatible", operation: "build", status: "committed", units: 1200, costMicrousd: 700 },
        { id: newId("pce"), workspaceId: ws, provider: "openai-compatible", operation: "build", status: "committed", units: 300, costMicrousd: 50 },
        { id: newId("pce"), workspaceId: ws, provider: "openai-compatible", operation: "discover", status: "reserved" },
        { id: newId("pce"), workspaceId: ws, provider: "openai-compatible", operation: "build", status: "released" },
      ]),
    );

    const res = await api("GET", `/billing/status?workspace_id=${ws}`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["$schema", ...SPEC_FIELDS].sort());
    const org = await personalOrg(owner.id);
    expect(res.body).toMatchObject({
      $schema: expect.stringMatching(/\/api\/v1\/schemas\/BillingStatusResponse\.json$/),
      organization_id: org,
      workspace_id: ws,
      plan_id: "self_hosted",
      status: "active",
      provider: null,
      limits: {},
      access_restricted: false,
      can_manage_billing: true,
      cancel_at_period_end: false,
      billing_contact_email: owner.email,
      past_due_since: null,
    });
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    expect(res.body.period_start).toBe(monthStart);
    expect(Date.parse(res.body.current_period_end)).toBeGreaterThan(now.getTime());
    const counted = await sqlUsage(org!, monthStart);
    expect(res.body.usage).toEqual(counted);
    expect(counted).toMatchObject({
      publications_per_month: 3,
      social_accounts: 2,
      workspaces: 1,
      members: 2,
      storage_bytes: 3345,
      builds_per_month: 2,
      ai_budget_microusd: 750,
    });
    expect(res.body.provider_costs).toEqual([
      expect.objectContaining({
        provider: "openai-compatible",
        currency: "USD",
        period_start: monthStart,
        budget_microusd: null,
        cost_microusd: 750,
        event_count: 2,
        units: 1500,
        reserved_event_count: 1,
        operations: [
          expect.objectContaining({ operation: "build", cost_microusd: 750, event_count: 2 }),
          expect.objectContaining({ operation: "discover", reserved_event_count: 1 }),
        ],
      }),
    ]);

    // Without parameters: the caller's own organization, the same figures.
    const own = await api("GET", "/billing/status", { token: owner.token });
    expect(own.body).toMatchObject({ organization_id: org, workspace_id: null, usage: counted });
    expect((await api("GET", `/billing/status?organization_id=${org}`, { token: owner.token })).body.usage).toEqual(counted);

    // A member who is not an owner of the organization reads it but cannot manage it, and sees no e-mail.
    const asEditor = await api("GET", `/billing/status?workspace_id=${ws}`, { token: editor.token });
    expect(asEditor.status, asEditor.text).toBe(200);
    expect(asEditor.body).toMatchObject({ can_manage_billing: false, billing_contact_email: null, organization_id: org });

    // Another team's workspace or organization: 404, never revealed.
    expectProblem(await api("GET", `/billing/status?workspace_id=${ws}`, { token: outsider.token }), 404, "not-found");
    expectProblem(await api("GET", `/billing/status?organization_id=${org}`, { token: outsider.token }), 404, "not-found");
    expectProblem(
      await api("GET", `/billing/status?workspace_id=${ws}&organization_id=${await personalOrg(outsider.id)}`, { token: owner.token }),
      404,
      "not-found",
    );
    expectProblem(await api("GET", "/billing/status"), 401, "unauthorized");
  });

  it("nothing is limited while billing is off", async () => {
    const owner = await newUser();
    for (const name of ["A", "B", "C"]) expect((await api("POST", "/workspaces", { token: owner.token, json: { name } })).status).toBe(201);
  });
});

describe("billing on: plans and limits", () => {
  let storage: MediaStorage;
  beforeAll(async () => {
    storage = await startMediaStorage({ BILLING_ENABLED: "true" } as Partial<Env>);
  });
  afterAll(async () => {
    await storage?.dispose();
  });

  it("a new organization is on free with its limits; each creating route refuses past a limit with 403 plan-limit-reached and creates nothing", async () => {
    const [owner, second, third] = await Promise.all([newUser(), newUser(), newUser()]);
    const first = await on("POST", "/workspaces", owner, { name: "Only" });
    expect(first.status, first.text).toBe(201);
    const ws = first.body.id as string;
    const org = (await personalOrg(owner.id))!;

    const status = await on("GET", "/billing/status", owner);
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ plan_id: "free", status: "active", limits: planOrThrow("free").limits, access_restricted: false });

    const expectLimit = (res: Awaited<ReturnType<typeof on>>, limit: string, usage: number) => {
      expectProblem(res, 403, "plan-limit-reached");
      expect(res.body).toMatchObject({ limit, usage, allowed: planOrThrow("free").limits[limit as "workspaces"] });
    };

    // workspaces: 1
    expectLimit(await on("POST", "/workspaces", owner, { name: "Second" }), "workspaces", 1);
    expect(await withDb(async (db) => (await db.select().from(workspaces).where(eq(workspaces.organizationId, org))).length)).toBe(1);

    // members: 2 (distinct people across the organization's workspaces)
    expect((await on("POST", `/workspaces/${ws}/members`, owner, { user_id: second.id, role: "editor" })).status).toBe(201);
    expectLimit(await on("POST", `/workspaces/${ws}/members`, owner, { user_id: third.id, role: "viewer" }), "members", 2);
    expect(await withDb(async (db) => (await db.select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, ws))).length)).toBe(2);

    // social_accounts: 3
    for (let i = 0; i < 3; i++) await newAccount(ws, owner.id, "webhook", { url: `http://127.0.0.1:9/h${i}` });
    expectLimit(await on("POST", "/accounts", owner, { workspace_id: ws, platform: "webhook", url: "http://127.0.0.1:9/h4" }), "social_accounts", 3);
    expect(await countWhere("social_accounts", ws)).toBe(3);

    // publications_per_month: 30
    await insertPublications(ws, 30);
    const [account] = await withDb((db) => db.select({ id: socialAccounts.id }).from(socialAccounts).where(eq(socialAccounts.workspaceId, ws)).limit(1));
    expectLimit(
      await on("POST", "/publications", owner, { workspace_id: ws, source_text: "One more", destinations: [{ social_account_id: account.id }] }),
      "publications_per_month",
      30,
    );
    expect(await countWhere("publications", ws)).toBe(30);

    // builds_per_month: 10
    await insertBuilds(ws, 10);
    expectLimit(
      await on("POST", "/publication-builds", owner, {
        workspace_id: ws,
        idea: "x",
        sources: [{ kind: "text", text: "y" }],
        destination_account_ids: [account.id],
      }),
      "builds_per_month",
      10,
    );
    expect(await countWhere("publication_builds", ws)).toBe(10);

    // storage_bytes: 1 GiB
    const gib = planOrThrow("free").limits.storage_bytes!;
    await insertMediaRows(ws, [{ size: gib - 10 }]);
    const refused = await upload(storage.env, owner.token, { workspaceId: ws, bytes: fixture("image-40x30.png"), filename: "a.png" });
    expectLimit(refused, "storage_bytes", gib - 10);
    expect(await countWhere("media", ws)).toBe(1);

    // At a limit is not over it; one more (written behind the API's back) restricts access.
    expect((await on("GET", "/billing/status", owner)).body.access_restricted).toBe(false);
    await insertBuilds(ws, 1);
    const over = await on("GET", `/billing/status?workspace_id=${ws}`, second);
    expect(over.body).toMatchObject({ access_restricted: true, can_manage_billing: false });
    expect(over.body.usage.builds_per_month).toBe(11);
  });

  it("committing a build makes a publication, so it counts against publications_per_month too", async () => {
    const owner = await newUser();
    const ws = (await on("POST", "/workspaces", owner, { name: "Builds" })).body.id as string;
    await insertPublications(ws, planOrThrow("free").limits.publications_per_month!);
    const build = newId("bld");
    await withDb((db) =>
      db.insert(publicationBuilds).values({ id: build, workspaceId: ws, input: {}, state: "completed", result: { canonical_text: "x", destinations: [] } }),
    );
    const res = await on("POST", `/publication-builds/${build}/commit`, owner);
    expectProblem(res, 403, "plan-limit-reached");
    expect(res.body.limit).toBe("publications_per_month");
    expect(await countWhere("publications", ws)).toBe(30);
  });

  it("members count distinct people across the organization: someone already counted still joins at the limit", async () => {
    const [admin, owner, ...people] = await Promise.all([newUser({ isAdmin: true }), ...Array.from({ length: 6 }, () => newUser())]);
    expect((await api("PUT", `/admin/users/${owner.id}/plan-override`, { token: admin.token, json: { plan_id: "pro" } })).status).toBe(200);
    const allowed = planOrThrow("pro").limits.members!;
    const ws1 = (await on("POST", "/workspaces", owner, { name: "One" })).body.id as string;
    for (const p of people.slice(0, allowed - 1))
      expect((await on("POST", `/workspaces/${ws1}/members`, owner, { user_id: p.id, role: "editor" })).status).toBe(201);
    const ws2 = await on("POST", "/workspaces", owner, { name: "Two" });
    expect(ws2.status, ws2.text).toBe(201);
    const again = await on("POST", `/workspaces/${ws2.body.id}/members`, owner, { user_id: people[0].id, role: "viewer" });
    expect(again.status, again.text).toBe(201);
    const refused = await on("POST", `/workspaces/${ws2.body.id}/members`, owner, { user_id: people[allowed - 1].id, role: "viewer" });
    expectProblem(refused, 403, "plan-limit-reached");
    expect(refused.body).toMatchObject({ limit: "members", usage: allowed, allowed });
  });

  it("concurrent creations of one organization are counted one at a time", async () => {
    const owner = await newUser();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => on("POST", "/workspaces", owner, { name: `Race ${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403, 403, 403]);
    const org = (await personalOrg(owner.id))!;
    expect(await withDb(async (db) => (await db.select().from(workspaces).where(eq(workspaces.organizationId, org))).length)).toBe(1);
  });
});

describe("PUT /admin/users/{id}/plan-override", () => {
  it('an administrator puts a user\'s organization on a plan (provider admin), audited by id only; "" removes it', async () => {
    const [admin, user] = await Promise.all([newUser({ isAdmin: true }), newUser()]);
    const org = (await personalOrg(user.id))!;
    const set = await api("PUT", `/admin/users/${user.id}/plan-override`, { token: admin.token, json: { plan_id: "team", reason: "partner" } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      $schema: expect.stringMatching(/PlanOverrideResponse\.json$/),
      user_id: user.id,
      organization_id: org,
      plan_id: "team",
      subscription: { id: expect.stringMatching(/^sub_/), status: "active", provider: "admin", current_period_end: null },
    });
    // Same again: the same subscription, nothing new.
    const again = await api("PUT", `/admin/users/${user.id}/plan-override`, { token: admin.token, json: { plan_id: "team" } });
    expect(again.body.subscription.id).toBe(set.body.subscription.id);

    const status = await on("GET", "/billing/status", user);
    expect(status.body).toMatchObject({ plan_id: "team", provider: "admin", status: "active", limits: planOrThrow("team").limits });
    // Billing off: still self_hosted for everyone.
    expect((await api("GET", "/billing/status", { token: user.token })).body.plan_id).toBe("self_hosted");
    // The override's limits are in force: a second workspace fits the team plan.
    expect((await on("POST", "/workspaces", user, { name: "One" })).status).toBe(201);
    expect((await on("POST", "/workspaces", user, { name: "Two" })).status).toBe(201);

    const removed = await api("PUT", `/admin/users/${user.id}/plan-override`, { token: admin.token, json: { plan_id: "" } });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ plan_id: "", subscription: { id: set.body.subscription.id, status: "canceled", provider: "admin" } });
    expect((await on("GET", "/billing/status", user)).body.plan_id).toBe("free");

    const events = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.actorUserId, admin.id), eq(auditEvents.targetId, org))),
    );
    expect(events.map((e) => e.action)).toEqual(["billing.plan_override.set", "billing.plan_override.remove"]);
    expect(JSON.stringify(events)).not.toContain(user.email);
  });

  it("unknown plan → 422; unknown user → 404; not an administrator → 403", async () => {
    const [admin, user] = await Promise.all([newUser({ isAdmin: true }), newUser()]);
    const bad = await api("PUT", `/admin/users/${user.id}/plan-override`, { token: admin.token, json: { plan_id: "platinum" } });
    expectProblem(bad, 422, "validation-error");
    expect(bad.body.errors[0].location).toBe("body.plan_id");
    expectProblem(await api("PUT", `/admin/users/usr_nobody/plan-override`, { token: admin.token, json: { plan_id: "pro" } }), 404, "not-found");
    expectProblem(await api("PUT", `/admin/users/${user.id}/plan-override`, { token: user.token, json: { plan_id: "pro" } }), 403, "forbidden");
    const subs = await withDb(async (db) =>
      db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.organizationId, (await personalOrg(user.id))!)),
    );
    expect(subs).toEqual([]);
  });
});

describe("purchase choices", () => {
  const choose = (user: User, json: unknown, e: Env = env) => call(e, "POST", "/billing/purchase-choices", { token: user.token, json });
  const validate = (user: User, token: string) => api("POST", "/billing/purchase-choices/validate", { token: user.token, json: { continuation_token: token } });

  it("returns plan, price, trial, payment and expiry facts in a signed token that validates for its user", async () => {
    const user = await newUser();
    const before = Date.now();
    const res = await choose(user, { plan_id: "pro", interval: "year" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      $schema: expect.stringMatching(/PurchaseChoice\.json$/),
      plan_id: "pro",
      interval: "year",
      price: { amount_minor: 19000, currency: "usd" },
      trial: { days: 14, eligible: true },
      payment: { provider: "none", required_now: false },
      continuation_token: expect.any(String),
    });
    const expires = Date.parse(res.body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(30 * 60 * 1000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(30 * 60 * 1000 + 5000);
    const ok = await validate(user, res.body.continuation_token);
    expect(ok.status, ok.text).toBe(200);
    const { $schema: _a, ...facts } = res.body;
    const { $schema: _b, ...again } = ok.body;
    expect(again).toEqual(facts);
  });

  it("422 invalid-continuation for an altered token, another user's, or an expired one", async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    const token = (await choose(user, { plan_id: "free", interval: "month" })).body.continuation_token as string;
    const [body, mac] = token.split(".");
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    const cheaper = Buffer.from(JSON.stringify({ ...payload, plan_id: "team" })).toString("base64url");
    expectProblem(await validate(user, `${cheaper}.${mac}`), 422, "invalid-continuation");
    expectProblem(await validate(user, `${body}.${mac.slice(0, -2)}AA`), 422, "invalid-continuation");
    expectProblem(await validate(user, "not-a-token"), 422, "invalid-continuation");
    expectProblem(await validate(other, token), 422, "invalid-continuation");
    const expired = await signContinuation(env.INSTANCE_SECRET_KEY!, user.id, { ...payload, expires_at: new Date(Date.now() - 1000).toISOString() });
    const res = await validate(user, expired);
    expectProblem(res, 422, "invalid-continuation");
    expect(res.body.detail).toMatch(/expired/);
  });

  it("an unknown plan, or a paid plan needing payment on an instance without a payment provider, is 422", async () => {
    const user = await newUser();
    expectProblem(await choose(user, { plan_id: "self_hosted", interval: "month" }), 422, "validation-error");
    expectProblem(await choose(user, { plan_id: "gold", interval: "month" }), 422, "validation-error");
    expectProblem(await choose(user, { plan_id: "pro", interval: "week" }), 422, "validation-error");
    expectProblem(await choose(user, { plan_id: "team", interval: "month" }), 422, "validation-error");
  });
});

describe("POST /onboarding/first-workspace", () => {
  const choose = async (user: User, plan_id: string, e: Env = env) =>
    (await call(e, "POST", "/billing/purchase-choices", { token: user.token, json: { plan_id, interval: "month" } })).body.continuation_token as string;
  const confirm = (user: User, json: unknown, e: Env = env) => call(e, "POST", "/onboarding/first-workspace", { token: user.token, json });

  it("creates the first workspace and a completed checkout for a free plan; an exact retry resumes it; others conflict", async () => {
    const user = await newUser();
    const token = await choose(user, "free");
    const first = await confirm(user, { workspace_name: "Launch", continuation_token: token });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      $schema: expect.stringMatching(/FirstWorkspaceResponse\.json$/),
      workspace: { id: expect.stringMatching(/^wsp_/), name: "Launch", role: "owner", organization_id: await personalOrg(user.id) },
      checkout: { id: expect.stringMatching(/^chk_/), status: "completed", plan_id: "free", interval: "month", checkout_url: null },
    });
    const retry = await confirm(user, { workspace_name: "Launch", continuation_token: token });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.workspace.id).toBe(first.body.workspace.id);
    expect(retry.body.checkout).toEqual(first.body.checkout);

    expectProblem(await confirm(user, { workspace_name: "Other name", continuation_token: token }), 409, "conflict");
    expectProblem(await confirm(user, { workspace_name: "Launch", continuation_token: await choose(user, "free") }), 409, "conflict");
    const owned = await withDb((db) =>
      db
        .select()
        .from(workspaceMembers)
        .where(and(eq(workspaceMembers.userId, user.id), eq(workspaceMembers.role, "owner"))),
    );
    expect(owned).toHaveLength(1);
    expect(await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.userId, user.id)))).toHaveLength(1);
    const actions = await withDb((db) => db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.actorUserId, user.id)));
    expect(actions.map((a) => a.action).sort()).toEqual(["billing.checkout.complete", "billing.checkout.create", "workspace.create"]);
  });

  it("a no-payment trial completes at once and the organization is trialing; concurrent duplicates make one workspace", async () => {
    const user = await newUser();
    const token = await choose(user, "pro");
    const results = await Promise.all(Array.from({ length: 4 }, () => confirm(user, { workspace_name: "Trial", continuation_token: token }, billingEnv)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.workspace.id)).size).toBe(1);
    expect(results[0].body.checkout).toMatchObject({ status: "completed", plan_id: "pro" });
    const status = await on("GET", "/billing/status", user);
    expect(status.body).toMatchObject({ plan_id: "pro", status: "trialing", provider: "none" });
  });

  it("409 for a user who already owns a workspace; 422 for a bad token; nothing created", async () => {
    const user = await newUser();
    await newWorkspace(user);
    expectProblem(await confirm(user, { workspace_name: "Again", continuation_token: await choose(user, "free") }), 409, "conflict");
    const fresh = await newUser();
    expectProblem(await confirm(fresh, { workspace_name: "Forged", continuation_token: "abc.def" }), 422, "invalid-continuation");
    expect(await withDb((db) => db.select().from(workspaceMembers).where(eq(workspaceMembers.userId, fresh.id)))).toEqual([]);
  });
});

/**
 * A stand-in for Stripe's API (not Stripe): it answers POST /v1/checkout/sessions as Stripe's API reference
 * documents (form-encoded parameters, Bearer secret key, Idempotency-Key → the same session), and records
 * what it was sent. Webhook events are signed the way Stripe documents (`t=…,v1=…`).
 */
function startStripeStandIn() {
  const requests: { headers: http.IncomingHttpHeaders; form: URLSearchParams; path: string }[] = [];
  const sessions = new Map<string, Record<string, unknown>>();
  const control = { failNext: 0 };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const form = new URLSearchParams(raw);
      requests.push({ headers: req.headers, form, path: req.url ?? "" });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (control.failNext > 0) {
        control.failNext--;
        return reply(500, { error: { type: "api_error", message: "Something went wrong on Stripe's end." } });
      }
      if (req.headers.authorization !== `Bearer ${STRIPE_KEY}`)
        return reply(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
      if (req.method !== "POST" || req.url !== "/v1/checkout/sessions") return reply(404, { error: { type: "invalid_request_error" } });
      const key = String(req.headers["idempotency-key"] ?? newId("idem"));
      if (!sessions.has(key)) {
        const id = `cs_test_${newId("s").slice(2)}`;
        sessions.set(key, {
          id,
          object: "checkout.session",
          mode: form.get("mode"),
          status: "open",
          client_reference_id: form.get("client_reference_id"),
          url: `https://checkout.stripe.com/c/pay/${id}`,
          expires_at: Math.floor(Date.now() / 1000) + 24 * 3600,
        });
      }
      reply(200, sessions.get(key));
    });
  });
  return { server, requests, control };
}

const STRIPE_KEY = "sk_test_heraldStandIn0001";
const WEBHOOK_SECRET = "whsec_heraldStandInSecret";

describe("Stripe checkout and webhooks (against a local stand-in for Stripe's API)", () => {
  const standIn = startStripeStandIn();
  let stripeEnv: Env;
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, "127.0.0.1", resolve));
    const port = (standIn.server.address() as AddressInfo).port;
    stripeEnv = {
      ...env,
      BILLING_ENABLED: "true",
      STRIPE_SECRET_KEY: STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: `http://127.0.0.1:${port}`,
    } as Env;
  });
  afterAll(() => new Promise<void>((resolve) => standIn.server.close(() => resolve())));

  const hook = async (event: object, opts: { secret?: string; at?: number } = {}) => {
    const payload = JSON.stringify(event);
    const signature = await stripeSignatureHeader(opts.secret ?? WEBHOOK_SECRET, payload, opts.at ?? Math.floor(Date.now() / 1000));
    return call(stripeEnv, "POST", "/billing/webhooks/stripe", {
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": signature },
    });
  };

  it("a paid plan opens a hosted Checkout Session; the signed webhook completes it; replays and forgeries change nothing", async () => {
    const user = await newUser();
    const choice = await call(stripeEnv, "POST", "/billing/purchase-choices", { token: user.token, json: { plan_id: "team", interval: "month" } });
    expect(choice.status, choice.text).toBe(201);
    expect(choice.body).toMatchObject({
      price: { amount_minor: 4900, currency: "usd" },
      trial: { days: 0, eligible: false },
      payment: { provider: "stripe", required_now: true },
    });

    const body = { workspace_name: "Paid", continuation_token: choice.body.continuation_token };
    const first = await call(stripeEnv, "POST", "/onboarding/first-workspace", { token: user.token, json: body });
    expect(first.status, first.text).toBe(201);
    expect(first.body.checkout).toMatchObject({
      status: "open",
      plan_id: "team",
      checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/),
    });
    expect(standIn.requests).toHaveLength(1);
    const sent = standIn.requests[0];
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.headers["idempotency-key"]).toBe(`herald-checkout-${first.body.checkout.id}`);
    expect(Object.fromEntries(sent.form)).toMatchObject({
      mode: "subscription",
      client_reference_id: first.body.checkout.id,
      customer_email: user.email,
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][unit_amount]": "4900",
      "line_items[0][price_data][recurring][interval]": "month",
      "metadata[checkout_attempt_id]": first.body.checkout.id,
    });

    const retry = await call(stripeEnv, "POST", "/onboarding/first-workspace", { token: user.token, json: body });
    expect(retry.status).toBe(200);
    expect(retry.body.checkout).toEqual(first.body.checkout);
    expect(standIn.requests).toHaveLength(1);

    const pending = await call(stripeEnv, "GET", "/billing/status", { token: user.token });
    expect(pending.body).toMatchObject({ plan_id: "free", status: "incomplete", provider: "stripe" });

    const [attempt] = await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, first.body.checkout.id)));
    const eventId = `evt_${newId("e").slice(2)}`;
    const completed = {
      id: eventId,
      object: "event",
      type: "checkout.session.completed",
      data: {
        object: {
          id: attempt.providerSessionId,
          object: "checkout.session",
          subscription: "sub_standin1",
          customer: "cus_standin1",
          client_reference_id: attempt.id,
        },
      },
    };

    // Forged (another secret) and stale (older than 5 minutes): 400 and nothing recorded.
    expectProblem(await hook(completed, { secret: "whsec_forged" }), 400, "bad-request");
    expectProblem(await hook(completed, { at: Math.floor(Date.now() / 1000) - 301 }), 400, "bad-request");
    const unsigned = await call(stripeEnv, "POST", "/billing/webhooks/stripe", { json: completed });
    expectProblem(unsigned, 400, "bad-request");
    expect(await withDb((db) => db.select().from(billingWebhookEvents).where(eq(billingWebhookEvents.id, eventId)))).toEqual([]);
    expect((await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, attempt.id))))[0].status).toBe("open");

    const ok = await hook(completed);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ $schema: expect.stringMatching(/StripeWebhookReceipt\.json$/), received: true, duplicate: false });
    const [done] = await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, attempt.id)));
    expect(done.status).toBe("completed");
    const [sub] = await withDb((db) => db.select().from(subscriptions).where(eq(subscriptions.id, attempt.subscriptionId!)));
    expect(sub).toMatchObject({
      status: "active",
      provider: "stripe",
      planId: "team",
      providerSubscriptionId: "sub_standin1",
      providerCustomerId: "cus_standin1",
    });
    const active = await call(stripeEnv, "GET", "/billing/status", { token: user.token });
    expect(active.body).toMatchObject({ plan_id: "team", status: "active", provider: "stripe", limits: planOrThrow("team").limits });
    expect((await call(stripeEnv, "GET", `/billing/status?workspace_id=${first.body.workspace.id}`, { token: user.token })).body.plan_id).toBe("team");

    // A replay of the same event id: acknowledged, nothing changes (no second audit entry).
    const auditCount = async () =>
      (
        await withDb((db) =>
          db
            .select()
            .from(auditEvents)
            .where(and(eq(auditEvents.targetId, attempt.id), eq(auditEvents.action, "billing.checkout.complete"))),
        )
      ).length;
    expect(await auditCount()).toBe(1);
    const [completion] = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, attempt.id), eq(auditEvents.action, "billing.checkout.complete"))),
    );
    expect(completion).toMatchObject({ actorUserId: null, actorKind: "system", workspaceId: first.body.workspace.id });
    const replay = await hook(completed);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.duplicate).toBe(true);
    expect(await auditCount()).toBe(1);

    // The subscription falls past due: not restricted for 7 days, restricted after.
    const pastDue = await hook({
      id: `evt_${newId("e").slice(2)}`,
      type: "customer.subscription.updated",
      data: { object: { id: "sub_standin1", object: "subscription", status: "past_due", cancel_at_period_end: true } },
    });
    expect(pastDue.status, pastDue.text).toBe(200);
    const grace = await call(stripeEnv, "GET", "/billing/status", { token: user.token });
    expect(grace.body).toMatchObject({ status: "past_due", cancel_at_period_end: true, access_restricted: false, past_due_since: expect.any(String) });
    await withDb((db) =>
      db
        .update(subscriptions)
        .set({ pastDueSince: new Date(Date.now() - 8 * 24 * 3600 * 1000) })
        .where(eq(subscriptions.id, sub.id)),
    );
    expect((await call(stripeEnv, "GET", "/billing/status", { token: user.token })).body.access_restricted).toBe(true);
  });

  it("a provider error answers 502 with the workspace kept; the exact retry opens the session then", async () => {
    const user = await newUser();
    const choice = await call(stripeEnv, "POST", "/billing/purchase-choices", { token: user.token, json: { plan_id: "team", interval: "month" } });
    const body = { workspace_name: "Flaky", continuation_token: choice.body.continuation_token };
    standIn.control.failNext = 1;
    expectProblem(await call(stripeEnv, "POST", "/onboarding/first-workspace", { token: user.token, json: body }), 502, "bad-gateway");
    const retry = await call(stripeEnv, "POST", "/onboarding/first-workspace", { token: user.token, json: body });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.checkout).toMatchObject({ status: "open", checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) });
    const owned = await withDb((db) => db.select().from(workspaceMembers).where(eq(workspaceMembers.userId, user.id)));
    expect(owned).toHaveLength(1);
  });

  it("an unpaid completion waits; an expired session expires the attempt and leaves the organization on free", async () => {
    const user = await newUser();
    const choice = await call(stripeEnv, "POST", "/billing/purchase-choices", { token: user.token, json: { plan_id: "team", interval: "year" } });
    const first = await call(stripeEnv, "POST", "/onboarding/first-workspace", {
      token: user.token,
      json: { workspace_name: "Later", continuation_token: choice.body.continuation_token },
    });
    expect(first.status, first.text).toBe(201);
    const [attempt] = await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, first.body.checkout.id)));
    const session = { id: attempt.providerSessionId, object: "checkout.session", payment_status: "unpaid", subscription: "sub_later" };
    expect((await hook({ id: `evt_${newId("e").slice(2)}`, type: "checkout.session.completed", data: { object: session } })).status).toBe(200);
    expect((await call(stripeEnv, "GET", "/billing/status", { token: user.token })).body).toMatchObject({ plan_id: "free", status: "incomplete" });
    expect((await hook({ id: `evt_${newId("e").slice(2)}`, type: "checkout.session.expired", data: { object: session } })).status).toBe(200);
    const [expired] = await withDb((db) => db.select().from(checkoutAttempts).where(eq(checkoutAttempts.id, attempt.id)));
    expect(expired.status).toBe("expired");
    expect((await call(stripeEnv, "GET", "/billing/status", { token: user.token })).body).toMatchObject({ plan_id: "free", status: "active", provider: null });
  });

  it("without a webhook secret configured the endpoint is 404; it never asks for a bearer token", async () => {
    const res = await call(billingEnv, "POST", "/billing/webhooks/stripe", { json: { id: "evt_x", type: "ping" } });
    expectProblem(res, 404, "not-found");
    const anon = await hook({ id: `evt_${newId("e").slice(2)}`, type: "invoice.created", data: { object: {} } });
    expect(anon.status, anon.text).toBe(200);
  });
});
