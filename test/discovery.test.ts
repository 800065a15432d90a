import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { outboxJobs, providerCostEvents, publicationBuilds, publications, renditions, socialAccounts } from "../db/schema";
import { api, env, expectProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { planOrThrow } from "../lib/billing/plans";
import { newId } from "../lib/ids";
import { startChatPeer, type ChatPeer } from "./peers/openai-chat";

/** POST /publication-opportunities/discover: idea cards from the workspace's own signals; it never creates anything. */

let chat: ChatPeer;
beforeAll(async () => {
  chat = await startChatPeer();
});
afterAll(() => chat?.stop());

async function setup() {
  const [owner, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, editor, viewer, outsider, ws };
}

async function withSignals() {
  const t = await setup();
  const bluesky = await newAccount(t.ws, t.owner.id, "bluesky");
  const mastodon = await newAccount(t.ws, t.owner.id, "mastodon");
  for (const text of [
    "Sourdough starters need feeding twice a day in summer.",
    "Our rye loaf sold out by nine this morning.",
    "Sourdough hydration explained: why 75% works for us.",
  ]) {
    const res = await api("POST", "/publications", {
      token: t.editor.token,
      json: { workspace_id: t.ws, source_text: text, destinations: [{ social_account_id: bluesky }] },
    });
    expect(res.status, res.text).toBe(201);
  }
  const imported = await api("POST", "/analytics/measurements", {
    token: t.owner.token,
    json: {
      workspace_id: t.ws,
      items: [
        {
          account_id: mastodon,
          external_id: "m1",
          published_at: "2026-11-01T10:00:00Z",
          title: "Sourdough troubleshooting thread",
          metrics: { likes: 40, reposts: 12, replies: 9 },
        },
      ],
    },
  });
  expect(imported.status, imported.text).toBeLessThan(300);
  const voice = await api("POST", "/voice-profiles", {
    token: t.owner.token,
    json: { workspace_id: t.ws, name: "Bakery", definition: { expertise: ["sourdough fermentation"], opinions: ["Commercial yeast shortcuts flavour."] } },
  });
  expect(voice.status, voice.text).toBe(201);
  return { ...t, bluesky, mastodon };
}

/** Rows discovery must never create: counted for the workspace before and after. */
const footprint = (ws: string) =>
  withDb(async (db) => {
    const n = async (table: typeof publications | typeof publicationBuilds | typeof outboxJobs | typeof renditions | typeof providerCostEvents) =>
      (await db.select({ n: count() }).from(table).where(eq(table.workspaceId, ws)))[0].n;
    return {
      publications: await n(publications),
      builds: await n(publicationBuilds),
      outbox: await n(outboxJobs),
      renditions: await n(renditions),
      costs: await n(providerCostEvents),
    };
  });

const discover = (token: string, json: unknown, e = env) =>
  Promise.resolve(
    gateway.request(
      "/publication-opportunities/discover",
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: typeof json === "string" ? json : JSON.stringify(json),
      },
      e,
    ),
  ).then(async (res) => ({ status: res.status, headers: res.headers, text: await res.clone().text(), body: (await res.json().catch(() => null)) as any }));

describe("discovery without a model", () => {
  it("ranks the workspace's own signals into idea cards with every SPEC 2.12 field; the same state gives the same cards; nothing is created", async () => {
    const t = await withSignals();
    const before = await footprint(t.ws);
    const res = await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky", "mastodon"] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/DiscoveryResult.json",
      model: "herald-signal-ranker",
      generated_at: expect.stringMatching(/Z$/),
    });
    const cards = res.body.opportunities;
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.length).toBeLessThanOrEqual(5);
    expect(cards[0].title.toLowerCase()).toContain("sourdough");
    for (const card of cards) {
      expect(Object.keys(card).sort()).toEqual(["angles", "hook", "id", "platform_treatments", "signal_date", "title", "why_it_fits", "why_now"]);
      expect(card.angles.length).toBeGreaterThanOrEqual(3);
      expect(card.angles.length).toBeLessThanOrEqual(5);
      for (const a of card.angles) expect(Object.keys(a).sort()).toEqual(["approach", "id", "label", "thesis"]);
      expect(card.platform_treatments.map((p: { platform: string }) => p.platform)).toEqual(["bluesky", "mastodon"]);
      for (const p of card.platform_treatments) expect(Object.keys(p).sort()).toEqual(["format", "media", "objective", "platform", "rationale"]);
      expect(card.why_it_fits.length).toBeGreaterThan(0);
    }
    expect(cards[0].why_it_fits).toMatch(/engagements|expertise|signals/);
    const again = await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky", "mastodon"] });
    expect(again.body.opportunities).toEqual(cards);
    // Without platforms: those of the connected accounts.
    const all = await discover(t.editor.token, { workspace_id: t.ws });
    expect(all.body.opportunities[0].platform_treatments.map((p: { platform: string }) => p.platform)).toEqual(["bluesky", "mastodon"]);
    expect(await footprint(t.ws)).toEqual(before);
  });

  it("answers each condition a user can meet with a clear problem", async () => {
    const t = await setup();
    // No accounts, no platforms named.
    const none = await discover(t.editor.token, { workspace_id: t.ws });
    expectProblem(none, 422, "validation-error");
    expect(none.body.errors[0].location).toBe("body.platforms");
    const bluesky = await newAccount(t.ws, t.owner.id, "bluesky");
    // Unknown platform; a known one with no account here.
    const unknown = await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky", "myspace", "mastodon"] });
    expectProblem(unknown, 422, "validation-error");
    expect(unknown.body.errors.map((e: { location: string }) => e.location)).toEqual(["body.platforms[1]", "body.platforms[2]"]);
    // Nothing to learn from yet.
    expectProblem(await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky"] }), 409, "conflict");
    await api("POST", "/publications", {
      token: t.editor.token,
      json: { workspace_id: t.ws, source_text: "Hello bakers.", destinations: [{ social_account_id: bluesky }] },
    });
    expect((await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky"] })).status).toBe(200);
    // An inactive account does not count as connected.
    await withDb((db) => db.update(socialAccounts).set({ isActive: false }).where(eq(socialAccounts.id, bluesky)));
    expectProblem(await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky"] }), 422, "validation-error");
    expectProblem(await discover(t.viewer.token, { workspace_id: t.ws }), 403, "forbidden");
    expectProblem(await discover(t.outsider.token, { workspace_id: t.ws }), 404, "not-found");
    expectProblem(await discover(t.editor.token, "{not json"), 400, "bad-request");
    expectProblem(await discover("nope", { workspace_id: t.ws }), 401, "unauthorized");
    expectProblem(await discover(t.editor.token, { workspace_id: t.ws, platforms: "bluesky" }), 422, "validation-error");
  });
});

describe("discovery with a language model (a stand-in for an OpenAI-compatible API)", () => {
  const withModel = () =>
    ({ ...env, AI_API_KEY: chat.key, AI_BASE_URL: chat.url, AI_MODEL: "stand-in-model", AI_COST_MICROUSD_PER_1K_TOKENS: "150" }) as typeof env;

  it("asks the model, holds its answer to the same shape, records the call in the cost ledger, and creates nothing else", async () => {
    const t = await withSignals();
    chat.answer = {
      content: JSON.stringify({
        opportunities: [
          {
            title: "Summer starter care",
            hook: "Your starter is hungrier in July.",
            why_it_fits: "Your sourdough posts drew the most replies.",
            why_now: "Summer heat speeds fermentation.",
            signal_date: "1999-01-01",
            angles: [{ label: "How-to", approach: "Steps", thesis: "Feed twice a day." }],
            platform_treatments: [
              { platform: "mastodon", format: "post", media: "photo of the starter", objective: "help", rationale: "Mastodon likes how-tos." },
              { platform: "myspace", format: "x", media: "x", objective: "x", rationale: "x" },
            ],
          },
        ],
      }),
    };
    const before = await footprint(t.ws);
    const res = await discover(t.editor.token, { workspace_id: t.ws, platforms: ["bluesky", "mastodon"] }, withModel());
    expect(res.status, res.text).toBe(200);
    expect(res.body.model).toBe("stand-in-model");
    const [card] = res.body.opportunities;
    expect(card).toMatchObject({ title: "Summer starter care", signal_date: null });
    expect(card.angles.length).toBe(3);
    expect(card.platform_treatments.map((p: { platform: string }) => p.platform)).toEqual(["bluesky", "mastodon"]);
    expect(card.platform_treatments[1].rationale).toBe("Mastodon likes how-tos.");
    const last = chat.requests.at(-1)!;
    expect(last.model).toBe("stand-in-model");
    expect(last.response_format).toEqual({ type: "json_object" });
    expect(last.messages[1].content).toContain("sourdough");
    const after = await footprint(t.ws);
    expect(after).toEqual({ ...before, costs: before.costs + 1 });
    const [ledger] = await withDb((db) => db.select().from(providerCostEvents).where(eq(providerCostEvents.workspaceId, t.ws)));
    expect(ledger).toMatchObject({ provider: "openai-compatible", operation: "discovery", status: "committed", units: 200, costMicrousd: 30, buildId: null });
  });

  it("falls back to the ranker when the model fails, breaks the shape or rate-limits: the ranker's cards, never a 502; each call is in the ledger", async () => {
    const t = await withSignals();
    const ranked = await discover(t.editor.token, { workspace_id: t.ws });
    expect(ranked.body.model).toBe("herald-signal-ranker");
    const answers: ChatPeer["answer"][] = [
      { content: "Sure! Here are some ideas: ..." },
      { content: JSON.stringify({ opportunities: [] }) },
      { status: 500 },
      { status: 429 },
    ];
    const asked = chat.requests.length;
    for (const answer of answers) {
      chat.answer = answer;
      const res = await discover(t.editor.token, { workspace_id: t.ws }, withModel());
      expect(res.status, res.text).toBe(200);
      expect(res.body.model).toBe("herald-signal-ranker");
      expect(res.body.opportunities).toEqual(ranked.body.opportunities);
    }
    expect(chat.requests.length).toBe(asked + answers.length);
    const rows = await withDb((db) => db.select().from(providerCostEvents).where(eq(providerCostEvents.workspaceId, t.ws)));
    expect(rows.map((r) => r.status).sort()).toEqual(["committed", "committed", "released", "released"]);
  });

  it("with billing on, refuses over the plan's AI budget with 403 plan-limit-reached, before asking the model", async () => {
    const t = await withSignals();
    const billing = { ...withModel(), BILLING_ENABLED: "true" } as typeof env;
    chat.answer = { content: "{}" };
    // Within the budget: answered (the ranker here, since "{}" is not the shape asked for).
    expect((await discover(t.editor.token, { workspace_id: t.ws }, billing)).status).toBe(200);
    const budget = planOrThrow("free").limits.ai_budget_microusd!;
    await withDb((db) =>
      db.insert(providerCostEvents).values({
        id: newId("pce"),
        workspaceId: t.ws,
        provider: "openai-compatible",
        operation: "build.draft",
        status: "committed",
        units: 1,
        costMicrousd: budget,
      }),
    );
    const asked = chat.requests.length;
    const refused = await discover(t.editor.token, { workspace_id: t.ws }, billing);
    expectProblem(refused, 403, "plan-limit-reached");
    expect(refused.body).toMatchObject({ limit: "ai_budget_microusd", allowed: budget, plan_id: "free" });
    expect(refused.body.usage).toBeGreaterThanOrEqual(budget);
    expect(chat.requests.length).toBe(asked);
    // Builds check the same budget the same way.
    const build = await gateway.request(
      "/publication-builds",
      {
        method: "POST",
        headers: { authorization: `Bearer ${t.editor.token}`, "content-type": "application/json" },
        body: JSON.stringify({ workspace_id: t.ws, idea: "x", sources: [{ kind: "text", text: "y" }], destination_account_ids: [t.bluesky] }),
      },
      billing,
    );
    expect(build.status).toBe(403);
    expect(await build.json()).toMatchObject({ limit: "ai_budget_microusd", allowed: budget });
  });
});
