import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { publications } from "../db/schema";
import type { RepostOverrideData } from "../db/schema/repost";
import { executeRepost } from "../lib/repost/execute";
import { evaluateRepostPolicies } from "../lib/repost/run-evaluator";
import { seedItem } from "./helpers/analytics";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { activityOfRendition, attemptsOfRendition, discardJobs, policyRow, publishedRendition, ruleData } from "./helpers/repost";
import { expectData, expectProblem, type Schemas } from "./helpers/typed";

/** SPEC 2.5 RepostOverride on publications: stored, answered, and honoured by the evaluator (inherit, custom, off). */

async function setup() {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  // Accounts at a closed port: these tests queue reposts and never run them against a platform.
  const account = (platform: "mastodon" | "webhook", name: string) =>
    newAccount(ws, owner.id, platform, {
      instanceUrl: "http://127.0.0.1:9",
      url: "http://127.0.0.1:9/hook",
      username: name,
      credentials: { access_token: name },
    });
  const [source, target, other, webhook] = await Promise.all([
    account("mastodon", "source"),
    account("mastodon", "target"),
    account("mastodon", "other"),
    account("webhook", "hook"),
  ]);
  return { owner, ws, source, target, other, webhook, api: client(owner.token) };
}

const customRule: Schemas["RepostRuleInput"] = {
  threshold_mode: "any",
  min_likes: 0,
  min_reposts: 2,
  min_comments: 0,
  min_views: 0,
  evaluation_window_seconds: 7200,
  require_plateau: false,
  plateau_checks: 3,
  delay_seconds: 0,
  stages: [{ delay_seconds: 0, unrepost_previous: false }],
};

describe("repost_override on publications", () => {
  it("is stored on create and update, answered on reads, and inherit by default", async () => {
    const t = await setup();
    const plain = expectData(await t.api.POST("/publications", { body: { workspace_id: t.ws, source_text: "plain", destinations: [] } }), 201);
    expect(plain.repost_override).toEqual({ mode: "inherit", rule: null, target_account_ids: [] });

    const override = { mode: "custom" as const, rule: customRule, target_account_ids: [t.target] };
    const created = expectData(
      await t.api.POST("/publications", { body: { workspace_id: t.ws, source_text: "own rule", destinations: [], repost_override: override } }),
      201,
    );
    expect(created.repost_override).toEqual(override);
    const read = expectData(await t.api.GET("/publications/{id}", { params: { path: { id: created.id } } }));
    expect(read.repost_override).toEqual(override);
    const listed = expectData(await t.api.GET("/publications", { params: { query: { workspace_id: t.ws } } }));
    expect(listed.find((p) => p.id === created.id)?.repost_override).toEqual(override);

    // Once published it may still be changed, alone; other edits stay refused.
    await withDb((db) => db.update(publications).set({ status: "published" }).where(eq(publications.id, created.id)));
    const off = expectData(
      await t.api.PUT("/publications/{id}", { params: { path: { id: created.id } }, body: { expected_revision: 1, repost_override: { mode: "off" } } }),
    );
    expect(off).toMatchObject({ revision: 2, status: "published", repost_override: { mode: "off", rule: null, target_account_ids: [] } });
    expectProblem(
      await t.api.PUT("/publications/{id}", {
        params: { path: { id: created.id } },
        body: { expected_revision: 2, title: "x", repost_override: { mode: "inherit" } },
      }),
      409,
      "not-editable",
    );
    expectProblem(
      await t.api.PUT("/publications/{id}", { params: { path: { id: created.id } }, body: { expected_revision: 1, repost_override: { mode: "inherit" } } }),
      409,
      "revision-conflict",
    );
    const back = expectData(
      await t.api.PUT("/publications/{id}", { params: { path: { id: created.id } }, body: { expected_revision: 2, repost_override: { mode: "inherit" } } }),
    );
    expect(back.repost_override).toEqual({ mode: "inherit", rule: null, target_account_ids: [] });
  });

  it("a custom override's targets are checked like a policy's, and its rule against the same ranges: 422 naming each", async () => {
    const t = await setup();
    const elsewhere = await setup();
    const create = (repost_override: Schemas["RepostOverrideInput"]) =>
      t.api.POST("/publications", { body: { workspace_id: t.ws, source_text: "x", destinations: [], repost_override } });
    const bad = expectProblem(
      await create({ mode: "custom", rule: customRule, target_account_ids: [t.target, t.webhook, elsewhere.target] }),
      422,
      "validation-error",
    );
    expect(bad.errors).toEqual([
      { location: "body.repost_override.target_account_ids[1]", message: "A webhook account cannot repost", value: t.webhook },
      { location: "body.repost_override.target_account_ids[2]", message: "Not an account of this workspace or granted to it", value: elsewhere.target },
    ]);
    const cases: [Schemas["RepostOverrideInput"], string][] = [
      [{ mode: "custom", target_account_ids: [t.target] }, "body.repost_override.rule"],
      [{ mode: "custom", rule: customRule, target_account_ids: [] }, "body.repost_override.target_account_ids"],
      [
        { mode: "custom", rule: { ...customRule, require_plateau: true, plateau_checks: 1 }, target_account_ids: [t.target] },
        "body.repost_override.rule.plateau_checks",
      ],
      [
        { mode: "custom", rule: { ...customRule, evaluation_window_seconds: 60 }, target_account_ids: [t.target] },
        "body.repost_override.rule.evaluation_window_seconds",
      ],
    ];
    for (const [override, location] of cases)
      expect(expectProblem(await create(override), 422, "validation-error").errors?.map((e) => e.location)).toEqual([location]);
    const count = await withDb((db) => db.select().from(publications).where(eq(publications.workspaceId, t.ws)));
    expect(count).toEqual([]);
  });
});

describe("the evaluator honours repost_override", () => {
  it("custom: its own rule and targets instead of the policies; off: never; inherit: the policies", async () => {
    const t = await setup();
    // The workspace policy: likes ≥ 3, reposted by `other`.
    await policyRow(t.ws, [t.source], [t.other]);
    const post = async (externalId: string, override: RepostOverrideData, metrics: Record<string, number>) => {
      const r = await publishedRendition(t.ws, t.source, "mastodon", externalId, null, { override });
      await seedItem(t.ws, t.source, { externalId, publishedAt: r.publishedAt, renditionId: r.renditionId, metrics });
      return r;
    };
    const { renditionId: custom, publicationId } = await post(
      "c-1",
      { mode: "custom", rule: ruleData({ min_likes: 0, min_reposts: 2 }), target_account_ids: [t.target] },
      { likes: 9, reposts: 2 },
    );
    const { renditionId: customUnmet } = await post(
      "c-2",
      { mode: "custom", rule: ruleData({ min_likes: 0, min_reposts: 2 }), target_account_ids: [t.target] },
      { likes: 9, reposts: 1 },
    );
    const { renditionId: off } = await post("o-1", { mode: "off", rule: null, target_account_ids: [] }, { likes: 9 });
    const { renditionId: inherit } = await post("i-1", { mode: "inherit", rule: null, target_account_ids: [] }, { likes: 9 });

    const jobs = await withDb((db) => evaluateRepostPolicies(db, { workspaceIds: [t.ws] }));
    try {
      expect(jobs).toHaveLength(2);
      expect(await attemptsOfRendition(custom)).toMatchObject([{ policyId: null, targetAccountId: t.target, stage: 0, status: "queued" }]);
      expect((await activityOfRendition(custom))[0].reason).toBe("publication's own rule, stage 0: all of: reposts 2 ≥ 2");
      expect(await attemptsOfRendition(customUnmet)).toEqual([]);
      expect(await attemptsOfRendition(off)).toEqual([]);
      expect(await attemptsOfRendition(inherit)).toMatchObject([{ targetAccountId: t.other }]);
      // Racing or repeated runs queue nothing twice (the override's own unique key).
      expect(await withDb((db) => evaluateRepostPolicies(db, { workspaceIds: [t.ws] }))).toEqual([]);

      // The override turned off before the queued repost runs: it does nothing, and says why.
      const [attempt] = await attemptsOfRendition(custom);
      expectData(
        await t.api.PUT("/publications/{id}", { params: { path: { id: publicationId } }, body: { expected_revision: 1, repost_override: { mode: "off" } } }),
      );
      await withDb((db) => executeRepost(db, env, attempt.id));
      expect(await attemptsOfRendition(custom)).toEqual([]);
      expect((await activityOfRendition(custom)).map((a) => [a.status, a.reason])).toEqual([
        ["queued", "publication's own rule, stage 0: all of: reposts 2 ≥ 2"],
        ["dropped", "dropped: the publication's repost_override is now off"],
      ]);
    } finally {
      await discardJobs(jobs);
    }
  });
});
