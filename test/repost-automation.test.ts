import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { repostActivity, repostPolicies } from "../db/schema";
import { newId } from "../lib/ids";
import { client } from "./helpers/client";
import { api, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { expectData, expectProblem, locationsOf, nextLink, type Problem, type Schemas } from "./helpers/typed";

type User = Awaited<ReturnType<typeof newUser>>;

async function team() {
  const [owner, admin, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  const source = await newAccount(ws, owner.id, "bluesky", { username: "source.test" });
  const target = await newAccount(ws, owner.id, "mastodon", { username: "target", instanceUrl: "https://masto.test" });
  return { owner, admin, editor, viewer, outsider, ws, source, target };
}

const rule: Schemas["RepostRuleInput"] = {
  threshold_mode: "all",
  min_likes: 5,
  min_reposts: 0,
  min_comments: 2,
  min_views: 0,
  evaluation_window_seconds: 86_400,
  require_plateau: true,
  plateau_checks: 3,
  delay_seconds: 600,
  stages: [
    { delay_seconds: 0, unrepost_previous: false },
    { delay_seconds: 3600, unrepost_previous: true },
  ],
};
const policyBody = (
  ws: string,
  source: string,
  target: string,
  extra: Partial<Schemas["CreateRepostPolicyRequest"]> = {},
): Schemas["CreateRepostPolicyRequest"] => ({
  workspace_id: ws,
  name: "Boost",
  enabled: true,
  source_account_ids: [source],
  target_account_ids: [target],
  rule,
  ...extra,
});
/** The policy's body for PUT: as created, without workspace_id, at a revision. */
const replaceBody = (ws: string, source: string, target: string, expected_revision: number, extra: Partial<Schemas["CreateRepostPolicyRequest"]> = {}) => {
  const { workspace_id: _, ...rest } = policyBody(ws, source, target, extra);
  return { ...rest, expected_revision };
};
const createPolicy = (user: User, body: Schemas["CreateRepostPolicyRequest"], idempotencyKey?: string) =>
  client(user.token).POST("/repost-automation/policies", { params: { header: idempotencyKey ? { "idempotency-key": idempotencyKey } : {} }, body });
const replacePolicy = (user: User, id: string, body: Schemas["ReplaceRepostPolicyRequest"]) =>
  client(user.token).PUT("/repost-automation/policies/{id}", { params: { path: { id } }, body });
const deletePolicy = (user: User, id: string) => client(user.token).DELETE("/repost-automation/policies/{id}", { params: { path: { id } } });
const settings = (user: User, ws: string) => client(user.token).GET("/repost-automation", { params: { query: { workspace_id: ws } } });
const activity = (user: User, query: { workspace_id: string; limit?: number; cursor?: string }) =>
  client(user.token).GET("/repost-automation/activity", { params: { query } });
const grant = (u: User, body: Schemas["CreateRepostGrantRequest"]) => client(u.token).POST("/repost-automation/grants", { body });
const withdraw = (u: User, id: string) => client(u.token).DELETE("/repost-automation/grants/{id}", { params: { path: { id } } });

describe("repost automation: settings and policies", () => {
  it("an admin creates, replaces and deletes a policy; GET shows every SPEC 2.10 field", async () => {
    const { admin, viewer, ws, source, target } = await team();
    const created = expectData(await createPolicy(admin, policyBody(ws, source, target)), 201);
    expect(created).toMatchObject({
      $schema: expect.stringMatching(/RepostPolicyResponse\.json$/),
      name: "Boost",
      enabled: true,
      rule,
      revision: 1,
      workspace_id: ws,
    });
    const id = created.id;

    const view = expectData(await settings(viewer, ws));
    expect(view).toMatchObject({
      $schema: expect.stringMatching(/SettingsResponse\.json$/),
      workspace_id: ws,
      can_manage: false,
      supported_platforms: ["bluesky", "mastodon", "x", "threads", "linkedin"],
      grants: [],
    });
    expect(view.policies).toEqual([
      expect.objectContaining({
        id,
        source_account_ids: [source],
        target_account_ids: [target],
        rule,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      }),
    ]);
    const accounts = view.accounts;
    expect(accounts.map((a) => a.id).sort()).toEqual([source, target].sort());
    expect(accounts.find((a) => a.id === target)).toMatchObject({
      platform: "mastodon",
      username: "target",
      instance_url: "https://masto.test",
      workspace_id: ws,
      workspace_name: expect.any(String),
      cross_workspace: false,
      grant_required: false,
      supports_repost: true,
    });
    expect((await settings(admin, ws)).data?.can_manage).toBe(true);

    const replaced = expectData(await replacePolicy(admin, id, replaceBody(ws, source, target, 1, { name: "Boost 2", enabled: false })));
    expect(replaced).toMatchObject({ name: "Boost 2", enabled: false, revision: 2 });

    const stale = await replacePolicy(admin, id, replaceBody(ws, source, target, 1));
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(2);
    const [row] = await withDb((db) => db.select().from(repostPolicies).where(eq(repostPolicies.id, id)));
    expect(row).toMatchObject({ name: "Boost 2", revision: 2 });

    expect((await deletePolicy(admin, id)).response.status).toBe(204);
    expect((await settings(admin, ws)).data?.policies).toEqual([]);
    expectProblem(await deletePolicy(admin, id), 404, "not-found");
  });

  it("roles: viewers read, editors and viewers may not change policies; outsiders get 404 everywhere", async () => {
    const { owner, editor, viewer, outsider, ws, source, target } = await team();
    expectProblem(await createPolicy(editor, policyBody(ws, source, target)), 403, "forbidden");
    expectProblem(await createPolicy(viewer, policyBody(ws, source, target)), 403, "forbidden");
    expectProblem(await createPolicy(outsider, policyBody(ws, source, target)), 404, "not-found");
    expectProblem(await settings(outsider, ws), 404, "not-found");
    expectProblem(await activity(outsider, { workspace_id: ws }), 404, "not-found");

    const id = expectData(await createPolicy(owner, policyBody(ws, source, target)), 201).id;
    const put = (u: User) => replacePolicy(u, id, replaceBody(ws, source, target, 1));
    expectProblem(await put(editor), 403, "forbidden");
    expectProblem(await put(outsider), 404, "not-found");
    expectProblem(await deletePolicy(viewer, id), 403, "forbidden");
    expectProblem(await deletePolicy(outsider, id), 404, "not-found");
    // The outsider's own workspace cannot reach it either.
    const theirs = await newWorkspace(outsider);
    expectProblem(await deletePolicy(outsider, id), 404, "not-found");
    expect((await settings(outsider, theirs)).data?.policies).toEqual([]);
  });

  it("422 for account ids of another workspace, unknown ids, twice-listed ids and accounts that cannot repost; the same message for unknown and foreign", async () => {
    const { owner, ws, source, target } = await team();
    const other = await team();
    const webhook = await newAccount(ws, owner.id, "webhook", { url: "https://example.test/hook" });
    const res = await createPolicy(
      owner,
      policyBody(ws, source, target, { source_account_ids: [other.source, "acc_missing"], target_account_ids: [target, target, webhook, other.target] }),
    );
    const errors = expectProblem(res, 422, "validation-error").errors ?? [];
    expect(errors.map((e) => e.location)).toEqual([
      "body.source_account_ids[0]",
      "body.source_account_ids[1]",
      "body.target_account_ids[1]",
      "body.target_account_ids[2]",
      "body.target_account_ids[3]",
    ]);
    expect(errors[0].message).toBe(errors[1].message);
    expect(await withDb((db) => db.select().from(repostPolicies).where(eq(repostPolicies.workspaceId, ws)))).toEqual([]);

    // Bad rules: each out-of-range field is named (CONTRACT §8 ranges).
    const cases: [Partial<Schemas["RepostRuleInput"]>, string][] = [
      [{ plateau_checks: 1 }, "body.rule.plateau_checks"],
      [{ plateau_checks: 13 }, "body.rule.plateau_checks"],
      [{ evaluation_window_seconds: 60 }, "body.rule.evaluation_window_seconds"],
      [{ evaluation_window_seconds: 604_801 }, "body.rule.evaluation_window_seconds"],
      [{ delay_seconds: 2_592_001 }, "body.rule.delay_seconds"],
      [{ delay_seconds: -1 }, "body.rule.delay_seconds"],
      [{ min_likes: -1 }, "body.rule.min_likes"],
      [{ min_views: 2 ** 40 }, "body.rule.min_views"],
      [{ min_likes: 0, min_comments: 0 }, "body.rule.min_likes"],
      [{ stages: [] }, "body.rule.stages"],
      [{ stages: Array.from({ length: 6 }, () => ({ delay_seconds: 0, unrepost_previous: false })) }, "body.rule.stages"],
      [{ stages: [{ delay_seconds: 2_592_001, unrepost_previous: false }] }, "body.rule.stages[0].delay_seconds"],
    ];
    for (const [change, location] of cases) {
      const bad = await createPolicy(owner, policyBody(ws, source, target, { rule: { ...rule, ...change } }));
      expect(locationsOf(expectProblem(bad, 422, "validation-error")), JSON.stringify(change)).toEqual([location]);
    }
    // Raw: a mode outside the enum and a string for a boolean, which the types forbid.
    const mistyped: [Record<string, unknown>, string][] = [
      [{ threshold_mode: "most" }, "body.rule.threshold_mode"],
      [{ require_plateau: "yes" }, "body.rule.require_plateau"],
    ];
    for (const [change, location] of mistyped) {
      const bad = await api<Problem>("POST", "/repost-automation/policies", {
        token: owner.token,
        json: { ...policyBody(ws, source, target), rule: { ...rule, ...change } },
      });
      expectRawProblem(bad, 422, "validation-error");
      expect(locationsOf(bad.body), JSON.stringify(change)).toEqual([location]);
    }
    // The earlier shape and engagement thresholds are no longer part of the rule (raw: the types refuse that shape).
    const old = await api("POST", "/repost-automation/policies", {
      token: owner.token,
      json: {
        ...policyBody(ws, source, target),
        rule: { match: "all", thresholds: [{ metric: "engagement", min: 5 }], window_hours: 24, stages: [{ delay_minutes: 0 }] },
      },
    });
    expectRawProblem(old, 422, "validation-error");
    expect(await withDb((db) => db.select().from(repostPolicies).where(eq(repostPolicies.workspaceId, ws)))).toEqual([]);
  });

  it("Idempotency-Key: the same body replays the first answer, another body is refused, one policy exists", async () => {
    const { admin, ws, source, target } = await team();
    const key = `k-${newId("t")}`;
    const first = await createPolicy(admin, policyBody(ws, source, target), key);
    expect(first.response.status).toBe(201);
    const again = await createPolicy(admin, policyBody(ws, source, target), key);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(first.data);
    expectProblem(await createPolicy(admin, policyBody(ws, source, target, { name: "Other" }), key), 422, "idempotency-key-reused");
    expect(await withDb((db) => db.select().from(repostPolicies).where(eq(repostPolicies.workspaceId, ws)))).toHaveLength(1);
  });
});

describe("repost automation: cross-workspace grants", () => {
  it("an admin of the account's workspace grants it; the other workspace may then target it, until the grant is withdrawn", async () => {
    const a = await team();
    const b = await team();
    // One person administers A's account and is a member of B.
    const both = await newUser();
    await withDb((db) =>
      db.execute(`insert into workspace_members (workspace_id, user_id, role) values ('${a.ws}', '${both.id}', 'admin'), ('${b.ws}', '${both.id}', 'admin')`),
    );

    // Without a grant, B cannot name A's account as a target.
    expectProblem(await createPolicy(b.owner, policyBody(b.ws, b.source, a.target)), 422, "validation-error");

    // B's owner is not an admin of A: 404 (not a member). A's editor: 403. A's admin who is not in B: 404.
    expectProblem(await grant(b.owner, { target_account_id: a.target, source_workspace_id: b.ws }), 404, "not-found");
    expectProblem(await grant(a.editor, { target_account_id: a.target, source_workspace_id: b.ws }), 403, "forbidden");
    expectProblem(await grant(a.admin, { target_account_id: a.target, source_workspace_id: b.ws }), 404, "not-found");
    expectProblem(await grant(both, { target_account_id: a.target, source_workspace_id: a.ws }), 422, "validation-error");

    const made = expectData(await grant(both, { target_account_id: a.target, source_workspace_id: b.ws }), 201);
    expect(made).toMatchObject({
      $schema: expect.stringMatching(/RepostGrantResponse\.json$/),
      target_account_id: a.target,
      source_workspace_id: b.ws,
      target_workspace_id: a.ws,
      platform: "mastodon",
      direction: "outbound",
    });
    expectProblem(await grant(both, { target_account_id: a.target, source_workspace_id: b.ws }), 409, "conflict");

    const inB = expectData(await settings(b.owner, b.ws));
    expect(inB.grants).toEqual([expect.objectContaining({ id: made.id, direction: "inbound", target_account_id: a.target })]);
    expect(inB.accounts.find((x) => x.id === a.target)).toMatchObject({
      cross_workspace: true,
      grant_required: true,
      grant_active: true,
      workspace_id: a.ws,
    });
    expect((await settings(a.owner, a.ws)).data?.grants).toEqual([expect.objectContaining({ id: made.id, direction: "outbound" })]);

    expectData(await createPolicy(b.owner, policyBody(b.ws, b.source, a.target)), 201);
    // A grant only covers targets: A's account can never be a source of B's policy.
    expectProblem(await createPolicy(b.owner, policyBody(b.ws, a.target, b.target)), 422, "validation-error");

    expectProblem(await withdraw(b.outsider, made.id), 404, "not-found");
    expectProblem(await withdraw(a.viewer, made.id), 403, "forbidden");
    // A viewer of the account's workspace who administers the receiving workspace may withdraw it.
    const sideways = await newUser();
    await withDb((db) =>
      db.execute(
        `insert into workspace_members (workspace_id, user_id, role) values ('${a.ws}', '${sideways.id}', 'viewer'), ('${b.ws}', '${sideways.id}', 'admin')`,
      ),
    );
    expect((await withdraw(sideways, made.id)).response.status).toBe(204);
    expectProblem(await withdraw(a.owner, made.id), 404, "not-found");
    expectProblem(await createPolicy(b.owner, policyBody(b.ws, b.source, a.target)), 422, "validation-error");
  });
});

describe("repost automation: activity", () => {
  it("lists newest first in pages with a Link cursor; a forged cursor is a 4xx", async () => {
    const { viewer, ws } = await team();
    const base = Date.parse("2026-01-01T00:00:00Z");
    const ids = Array.from({ length: 7 }, (_, i) => ({ id: newId("rpa"), at: new Date(base + Math.floor(i / 2) * 1000) }));
    await withDb((db) =>
      db
        .insert(repostActivity)
        .values(ids.map((r, i) => ({ id: r.id, workspaceId: ws, stage: 0, action: "repost" as const, status: "done" as const, reason: `row ${i}`, at: r.at }))),
    );
    const expected = [...ids].sort((x, y) => y.at.getTime() - x.at.getTime() || (y.id < x.id ? -1 : 1)).map((r) => r.id);
    const seen: string[] = [];
    // Each next page through its Link's cursor; the Link keeps the workspace and the limit.
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const res = await activity(viewer, { workspace_id: ws, limit: 3, cursor });
      const body = expectData(res);
      expect(body.$schema).toMatch(/RepostActivityResponse\.json$/);
      seen.push(...body.items.map((i) => i.id));
      const next = nextLink(res.response);
      if (!next) break;
      expect(next.pathname).toMatch(/\/repost-automation\/activity$/);
      expect(next.searchParams.get("workspace_id")).toBe(ws);
      expect(next.searchParams.get("limit")).toBe("3");
      cursor = next.searchParams.get("cursor") ?? undefined;
      expect(cursor).toBeDefined();
    }
    expect(seen).toEqual(expected);
    const first = expectData(await activity(viewer, { workspace_id: ws, limit: 1 })).items[0];
    expect(first).toMatchObject({ action: "repost", status: "done", stage: 0, policy_id: null, external_id: null, at: expect.any(String) });

    const forged = await activity(viewer, { workspace_id: ws, cursor: "bm90LWEtY3Vyc29y" });
    expect(forged.response.status).toBeGreaterThanOrEqual(400);
    expect(forged.response.status).toBeLessThan(500);
    expectProblem(await activity(viewer, { workspace_id: ws, limit: 100000 }), 422, "validation-error");
  });
});
