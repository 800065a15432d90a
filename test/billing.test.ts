import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
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
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { env, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { call, fixture, insertMediaRows, startMediaStorage, uploadForm, type MediaStorage } from "./helpers/media";
import { clientWithEnv, expectData, expectProblem, type Problem } from "./helpers/typed";
import { newAccount } from "./helpers/publishing";

/**
 * Billing (CONTRACT.md §8). Instance settings are global to the shared test database, so this file never
 * saves one: the tests that need billing on or Stripe configured pass those settings as environment
 * variables (which win over saved values) in the env of their own gateway calls only. Other test files
 * keep seeing billing off.
 */
type User = Awaited<ReturnType<typeof newUser>>;

const billingEnv = { ...env, BILLING_ENABLED: "true" } as Env;
/** The typed client as `user`, with billing on in the env of this call only. */
const on = (user: User) => clientWithEnv(user.token, billingEnv);

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

    const created = expectData(await client(user.token).POST("/workspaces", { body: { name: "Mine" } }), 201);
    const [row] = await withDb((db) => db.select().from(workspaces).where(eq(workspaces.id, created.id)));
    expect(row.organizationId).toBe(org);
  });

  it("POST /workspaces takes an organization the caller belongs to; another's is 404 and nothing is created", async () => {
    const [a, b] = await Promise.all([newUser(), newUser()]);
    const orgA = await personalOrg(a.id);
    const orgB = await personalOrg(b.id);
    const asA = client(a.token);
    const mine = await asA.POST("/workspaces", { body: { name: "Explicit", organization_id: orgA } });
    expect(mine.response.status, JSON.stringify(mine.error)).toBe(201);
    expectProblem(await asA.POST("/workspaces", { body: { name: "Theirs", organization_id: orgB } }), 404, "not-found");
    expectProblem(await asA.POST("/workspaces", { body: { name: "Nowhere", organization_id: "org_nope" } }), 404, "not-found");
    const count = await withDb(async (db) => (await db.select().from(workspaces).where(eq(workspaces.organizationId, orgB!))).length);
    expect(count).toBe(0);
  });
});

describe("GET /billing/status with billing off (the default)", () => {
  it("self_hosted, no limits, nothing restricted; usage counted as SQL counts it; provider costs from the ledger", async () => {
    const [owner, editor, outsider] = await Promise.all([newUser(), newUser(), newUser()]);
    const asOwner = client(owner.token);
    const ws = expectData(await asOwner.POST("/workspaces", { body: { name: "Counted" } }), 201).id;
    await asOwner.POST("/workspaces/{id}/members", { params: { path: { id: ws } }, body: { user_id: editor.id, role: "editor" } });
    const hook = await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/hook" });
    await newAccount(ws, owner.id, "webhook", { url: "http://127.0.0.1:9/other" });
    for (const text of ["One", "Two", "Three"]) {
      const res = await client(editor.token).POST("/publications", {
        body: { workspace_id: ws, source_text: text, destinations: [{ social_account_id: hook }] },
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
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

    const status = (user: User, query: { workspace_id?: string; organization_id?: string } = {}) =>
      client(user.token).GET("/billing/status", { params: { query } });
    const res = expectData(await status(owner, { workspace_id: ws }));
    expect(Object.keys(res).sort()).toEqual(["$schema", ...SPEC_FIELDS].sort());
    const org = await personalOrg(owner.id);
    expect(res).toMatchObject({
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
    expect(res.period_start).toBe(monthStart);
    expect(Date.parse(res.current_period_end ?? "")).toBeGreaterThan(now.getTime());
    const counted = await sqlUsage(org!, monthStart);
    expect(res.usage).toEqual(counted);
    expect(counted).toMatchObject({
      publications_per_month: 3,
      social_accounts: 2,
      workspaces: 1,
      members: 2,
      storage_bytes: 3345,
      builds_per_month: 2,
      ai_budget_microusd: 750,
    });
    expect(res.provider_costs).toEqual([
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
    const own = await status(owner);
    expect(own.data).toMatchObject({ organization_id: org, workspace_id: null, usage: counted });
    expect((await status(owner, { organization_id: org })).data?.usage).toEqual(counted);

    // A member who is not an owner of the organization reads it but cannot manage it, and sees no e-mail.
    const asEditor = expectData(await status(editor, { workspace_id: ws }));
    expect(asEditor).toMatchObject({ can_manage_billing: false, billing_contact_email: null, organization_id: org });

    // Another team's workspace or organization: 404, never revealed.
    expectProblem(await status(outsider, { workspace_id: ws }), 404, "not-found");
    expectProblem(await status(outsider, { organization_id: org }), 404, "not-found");
    expectProblem(await status(owner, { workspace_id: ws, organization_id: await personalOrg(outsider.id) }), 404, "not-found");
    expectProblem(await client().GET("/billing/status"), 401, "unauthorized");
  });

  it("nothing is limited while billing is off", async () => {
    const owner = await newUser();
    for (const name of ["A", "B", "C"]) expect((await client(owner.token).POST("/workspaces", { body: { name } })).response.status).toBe(201);
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
    const asOwner = on(owner);
    const ws = expectData(await asOwner.POST("/workspaces", { body: { name: "Only" } }), 201).id;
    const org = (await personalOrg(owner.id))!;

    const status = expectData(await asOwner.GET("/billing/status"));
    expect(status).toMatchObject({ plan_id: "free", status: "active", limits: planOrThrow("free").limits, access_restricted: false });

    const expectLimit = (res: { error?: Problem; response: Response }, limit: string, usage: number) => {
      const problem = expectProblem(res, 403, "plan-limit-reached");
      expect(problem).toMatchObject({ limit, usage, allowed: planOrThrow("free").limits[limit as "workspaces"] });
    };
    const addMember = (user_id: string, role: "editor" | "viewer") =>
      asOwner.POST("/workspaces/{id}/members", { params: { path: { id: ws } }, body: { user_id, role } });

    // workspaces: 1
    expectLimit(await asOwner.POST("/workspaces", { body: { name: "Second" } }), "workspaces", 1);
    expect(await withDb(async (db) => (await db.select().from(workspaces).where(eq(workspaces.organizationId, org))).length)).toBe(1);

    // members: 2 (distinct people across the organization's workspaces)
    expect((await addMember(second.id, "editor")).response.status).toBe(201);
    expectLimit(await addMember(third.id, "viewer"), "members", 2);
    expect(await withDb(async (db) => (await db.select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, ws))).length)).toBe(2);

    // social_accounts: 3
    for (let i = 0; i < 3; i++) await newAccount(ws, owner.id, "webhook", { url: `http://127.0.0.1:9/h${i}` });
    expectLimit(await asOwner.POST("/accounts", { body: { workspace_id: ws, platform: "webhook", url: "http://127.0.0.1:9/h4" } }), "social_accounts", 3);
    expect(await countWhere("social_accounts", ws)).toBe(3);

    // publications_per_month: 30
    await insertPublications(ws, 30);
    const [account] = await withDb((db) => db.select({ id: socialAccounts.id }).from(socialAccounts).where(eq(socialAccounts.workspaceId, ws)).limit(1));
    expectLimit(
      await asOwner.POST("/publications", { body: { workspace_id: ws, source_text: "One more", destinations: [{ social_account_id: account.id }] } }),
      "publications_per_month",
      30,
    );
    expect(await countWhere("publications", ws)).toBe(30);

    // builds_per_month: 10
    await insertBuilds(ws, 10);
    expectLimit(
      await asOwner.POST("/publication-builds", {
        body: {
          workspace_id: ws,
          idea: "x",
          sources: [{ kind: "text", text: "y" }],
          destination_account_ids: [account.id],
        },
      }),
      "builds_per_month",
      10,
    );
    expect(await countWhere("publication_builds", ws)).toBe(10);

    // storage_bytes: 1 GiB
    const gib = planOrThrow("free").limits.storage_bytes!;
    await insertMediaRows(ws, [{ size: gib - 10 }]);
    // A multipart upload: the generated UploadMediaForm types `file` as a string (format binary), so the bytes go as a raw FormData body.
    const refused = await call<Problem>(storage.env, "POST", "/media", {
      token: owner.token,
      body: uploadForm({ workspaceId: ws, bytes: fixture("image-40x30.png"), filename: "a.png" }),
    });
    expectRawProblem(refused, 403, "plan-limit-reached");
    expect(refused.body).toMatchObject({ limit: "storage_bytes", usage: gib - 10, allowed: planOrThrow("free").limits.storage_bytes });
    expect(await countWhere("media", ws)).toBe(1);

    // At a limit is not over it; one more (written behind the API's back) restricts access.
    expect((await asOwner.GET("/billing/status")).data?.access_restricted).toBe(false);
    await insertBuilds(ws, 1);
    const over = await on(second).GET("/billing/status", { params: { query: { workspace_id: ws } } });
    expect(over.data).toMatchObject({ access_restricted: true, can_manage_billing: false });
    expect(over.data?.usage.builds_per_month).toBe(11);
  });

  it("committing a build makes a publication, so it counts against publications_per_month too", async () => {
    const owner = await newUser();
    const ws = expectData(await on(owner).POST("/workspaces", { body: { name: "Builds" } }), 201).id;
    await insertPublications(ws, planOrThrow("free").limits.publications_per_month!);
    const build = newId("bld");
    await withDb((db) =>
      db.insert(publicationBuilds).values({ id: build, workspaceId: ws, input: {}, state: "completed", result: { canonical_text: "x", destinations: [] } }),
    );
    const res = await on(owner).POST("/publication-builds/{id}/commit", { params: { path: { id: build } } });
    expect(expectProblem(res, 403, "plan-limit-reached").limit).toBe("publications_per_month");
    expect(await countWhere("publications", ws)).toBe(30);
  });

  it("members count distinct people across the organization: someone already counted still joins at the limit", async () => {
    const [admin, owner, ...people] = await Promise.all([newUser({ isAdmin: true }), ...Array.from({ length: 6 }, () => newUser())]);
    const planOverride = await client(admin.token).PUT("/admin/users/{id}/plan-override", { params: { path: { id: owner.id } }, body: { plan_id: "pro" } });
    expect(planOverride.response.status).toBe(200);
    const allowed = planOrThrow("pro").limits.members!;
    const asOwner = on(owner);
    const addMember = (ws: string, user_id: string, role: "editor" | "viewer") =>
      asOwner.POST("/workspaces/{id}/members", { params: { path: { id: ws } }, body: { user_id, role } });
    const ws1 = expectData(await asOwner.POST("/workspaces", { body: { name: "One" } }), 201).id;
    for (const p of people.slice(0, allowed - 1)) expect((await addMember(ws1, p.id, "editor")).response.status).toBe(201);
    const ws2 = expectData(await asOwner.POST("/workspaces", { body: { name: "Two" } }), 201);
    const again = await addMember(ws2.id, people[0].id, "viewer");
    expect(again.response.status, JSON.stringify(again.error)).toBe(201);
    const refused = await addMember(ws2.id, people[allowed - 1].id, "viewer");
    expect(expectProblem(refused, 403, "plan-limit-reached")).toMatchObject({ limit: "members", usage: allowed, allowed });
  });

  it("concurrent creations of one organization are counted one at a time", async () => {
    const owner = await newUser();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => on(owner).POST("/workspaces", { body: { name: `Race ${i}` } })));
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 403, 403, 403, 403]);
    const org = (await personalOrg(owner.id))!;
    expect(await withDb(async (db) => (await db.select().from(workspaces).where(eq(workspaces.organizationId, org))).length)).toBe(1);
  });
});

describe("PUT /admin/users/{id}/plan-override", () => {
  it('an administrator puts a user\'s organization on a plan (provider admin), audited by id only; "" removes it', async () => {
    const [admin, user] = await Promise.all([newUser({ isAdmin: true }), newUser()]);
    const org = (await personalOrg(user.id))!;
    const override = (id: string, body: { plan_id: string; reason?: string }, as: User = admin) =>
      client(as.token).PUT("/admin/users/{id}/plan-override", { params: { path: { id } }, body });
    const set = expectData(await override(user.id, { plan_id: "team", reason: "partner" }));
    expect(set).toMatchObject({
      $schema: expect.stringMatching(/PlanOverrideResponse\.json$/),
      user_id: user.id,
      organization_id: org,
      plan_id: "team",
      subscription: { id: expect.stringMatching(/^sub_/), status: "active", provider: "admin", current_period_end: null },
    });
    // Same again: the same subscription, nothing new.
    const again = await override(user.id, { plan_id: "team" });
    expect(again.data?.subscription?.id).toBe(set.subscription?.id);

    const status = await on(user).GET("/billing/status");
    expect(status.data).toMatchObject({ plan_id: "team", provider: "admin", status: "active", limits: planOrThrow("team").limits });
    // Billing off: still self_hosted for everyone.
    expect((await client(user.token).GET("/billing/status")).data?.plan_id).toBe("self_hosted");
    // The override's limits are in force: a second workspace fits the team plan.
    expect((await on(user).POST("/workspaces", { body: { name: "One" } })).response.status).toBe(201);
    expect((await on(user).POST("/workspaces", { body: { name: "Two" } })).response.status).toBe(201);

    const removed = expectData(await override(user.id, { plan_id: "" }));
    expect(removed).toMatchObject({ plan_id: "", subscription: { id: set.subscription?.id, status: "canceled", provider: "admin" } });
    expect((await on(user).GET("/billing/status")).data?.plan_id).toBe("free");

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
    const override = (id: string, plan_id: string, as: User = admin) =>
      client(as.token).PUT("/admin/users/{id}/plan-override", { params: { path: { id } }, body: { plan_id } });
    const bad = await override(user.id, "platinum");
    expect(expectProblem(bad, 422, "validation-error").errors?.[0].location).toBe("body.plan_id");
    expectProblem(await override("usr_nobody", "pro"), 404, "not-found");
    expectProblem(await override(user.id, "pro", user), 403, "forbidden");
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
  const choose = (user: User, body: { plan_id: string; interval: "month" | "year" }) => client(user.token).POST("/billing/purchase-choices", { body });
  const validate = (user: User, token: string) => client(user.token).POST("/billing/purchase-choices/validate", { body: { continuation_token: token } });

  it("returns plan, price, trial, payment and expiry facts in a signed token that validates for its user", async () => {
    const user = await newUser();
    const before = Date.now();
    const res = expectData(await choose(user, { plan_id: "pro", interval: "year" }), 201);
    expect(res).toMatchObject({
      $schema: expect.stringMatching(/PurchaseChoice\.json$/),
      plan_id: "pro",
      interval: "year",
      price: { amount_minor: 19000, currency: "usd" },
      trial: { days: 14, eligible: true },
      payment: { provider: "none", required_now: false },
      continuation_token: expect.any(String),
    });
    const expires = Date.parse(res.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(30 * 60 * 1000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(30 * 60 * 1000 + 5000);
    const ok = expectData(await validate(user, res.continuation_token));
    const { $schema: _a, ...facts } = res;
    const { $schema: _b, ...again } = ok;
    expect(again).toEqual(facts);
  });

  it("422 invalid-continuation for an altered token, another user's, or an expired one", async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    const token = expectData(await choose(user, { plan_id: "free", interval: "month" }), 201).continuation_token;
    const [body, mac] = token.split(".");
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    const cheaper = Buffer.from(JSON.stringify({ ...payload, plan_id: "team" })).toString("base64url");
    expectProblem(await validate(user, `${cheaper}.${mac}`), 422, "invalid-continuation");
    expectProblem(await validate(user, `${body}.${mac.slice(0, -2)}AA`), 422, "invalid-continuation");
    expectProblem(await validate(user, "not-a-token"), 422, "invalid-continuation");
    expectProblem(await validate(other, token), 422, "invalid-continuation");
    const expired = await signContinuation(env.INSTANCE_SECRET_KEY!, user.id, { ...payload, expires_at: new Date(Date.now() - 1000).toISOString() });
    const res = await validate(user, expired);
    expect(expectProblem(res, 422, "invalid-continuation").detail).toMatch(/expired/);
  });

  it("an unknown plan, or a paid plan needing payment on an instance without a payment provider, is 422", async () => {
    const user = await newUser();
    expectProblem(await choose(user, { plan_id: "self_hosted", interval: "month" }), 422, "validation-error");
    expectProblem(await choose(user, { plan_id: "gold", interval: "month" }), 422, "validation-error");
    // An interval outside the declared enum, which the typed client forbids: sent raw.
    expectRawProblem(
      await call(env, "POST", "/billing/purchase-choices", { token: user.token, json: { plan_id: "pro", interval: "week" } }),
      422,
      "validation-error",
    );
    expectProblem(await choose(user, { plan_id: "team", interval: "month" }), 422, "validation-error");
  });
});

describe("POST /onboarding/first-workspace", () => {
  const choose = async (user: User, plan_id: string) =>
    expectData(await client(user.token).POST("/billing/purchase-choices", { body: { plan_id, interval: "month" } }), 201).continuation_token;
  const confirm = (user: User, body: { workspace_name: string; continuation_token: string }, e: Env = env) =>
    clientWithEnv(user.token, e).POST("/onboarding/first-workspace", { body });

  it("creates the first workspace and a completed checkout for a free plan; an exact retry resumes it; others conflict", async () => {
    const user = await newUser();
    const token = await choose(user, "free");
    const first = expectData(await confirm(user, { workspace_name: "Launch", continuation_token: token }), 201);
    expect(first).toMatchObject({
      $schema: expect.stringMatching(/FirstWorkspaceResponse\.json$/),
      workspace: { id: expect.stringMatching(/^wsp_/), name: "Launch", role: "owner", organization_id: await personalOrg(user.id) },
      checkout: { id: expect.stringMatching(/^chk_/), status: "completed", plan_id: "free", interval: "month", checkout_url: null },
    });
    const retry = expectData(await confirm(user, { workspace_name: "Launch", continuation_token: token }));
    expect(retry.workspace.id).toBe(first.workspace.id);
    expect(retry.checkout).toEqual(first.checkout);

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
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.data?.workspace.id)).size).toBe(1);
    expect(results[0].data?.checkout).toMatchObject({ status: "completed", plan_id: "pro" });
    const status = await on(user).GET("/billing/status");
    expect(status.data).toMatchObject({ plan_id: "pro", status: "trialing", provider: "none" });
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
