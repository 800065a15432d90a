import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, socialAccounts } from "../db/schema";
import { newId } from "../lib/ids";
import { voicesForAccounts } from "../lib/voice/store";
import { api, newUser, newWorkspace, slugOf, withDb, expectProblem } from "./helpers/harness";

type User = Awaited<ReturnType<typeof newUser>>;

const definition = {
  traits: ["warm", "direct"],
  formality: "casual",
  identity_summary: "A small bakery that talks like a neighbour.",
  preferred_language: "en",
  examples: [{ platform: "bluesky", text: "Fresh rye at 7.", why_it_fits: "Short and concrete" }],
};

async function newAccount(workspaceId: string, owner: { id: string }) {
  const id = newId("acc");
  await withDb((db) => db.insert(socialAccounts).values({ id, workspaceId, platform: "webhook", url: "https://example.test/hook", createdBy: owner.id }));
  return id;
}

/** A workspace with an owner, an admin, an editor and a viewer, plus an outsider. */
async function team() {
  const [owner, admin, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, admin, editor, viewer, outsider, ws };
}

const create = (user: User, ws: string, name: string, extra: Record<string, unknown> = {}) =>
  api("POST", "/voice-profiles", { token: user.token, json: { workspace_id: ws, name, definition, ...extra } });

describe("voice profiles: create, read, list", () => {
  it("creates profiles (the first becomes the default), fills missing definition members, reads and lists them", async () => {
    const { editor, viewer, ws } = await team();
    const first = await create(editor, ws, "House voice");
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      $schema: "http://localhost:8787/api/v1/schemas/VoiceProfile.json",
      id: expect.stringMatching(/^vop_/),
      workspace_id: ws,
      name: "House voice",
      is_default: true,
      assigned_account_ids: [],
      revision: 1,
      schema_version: 1,
    });
    expect(first.body.definition).toEqual({
      boundaries: [],
      disliked_patterns: [],
      expertise: [],
      forbidden_phrases: [],
      opinions: [],
      recurring_expressions: [],
      traits: ["warm", "direct"],
      vocabulary: [],
      formality: "casual",
      humor: "",
      identity_summary: definition.identity_summary,
      preferred_language: "en",
      corrections: [],
      examples: definition.examples,
      interview_answers: [],
    });
    expect(first.body.created_at).toMatch(/Z$/);

    const second = await create(editor, ws, "Launch voice");
    expect(second.status).toBe(201);
    expect(second.body.is_default).toBe(false);

    const got = await api("GET", `/voice-profiles/${second.body.id}`, { token: viewer.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(second.body);

    const list = await api("GET", `/voice-profiles?workspace_id=${ws}`, { token: viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.map((p: { id: string }) => p.id)).toEqual([first.body.id, second.body.id]);
    expect(list.body.every((p: { $schema: string }) => p.$schema.endsWith("/VoiceProfile.json"))).toBe(true);

    const page = await api("GET", `/voice-profiles?workspace_id=${ws}&limit=1`, { token: viewer.token });
    expect(page.body).toHaveLength(1);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const rest = await api("GET", new URL(next!).pathname + new URL(next!).search, { token: viewer.token });
    expect(rest.body.map((p: { id: string }) => p.id)).toEqual([second.body.id]);

    const trail = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, ws), eq(auditEvents.action, "voice_profile.create"))),
    );
    expect(trail).toHaveLength(2);
  });

  it("roles and workspaces: viewers cannot create, outsiders see nothing", async () => {
    const { editor, viewer, outsider, ws } = await team();
    expectProblem(await create(viewer, ws, "Nope"), 403, "forbidden");
    expectProblem(await create(outsider, ws, "Nope"), 404, "not-found");
    const profile = (await create(editor, ws, "Mine")).body;
    expectProblem(await api("GET", `/voice-profiles/${profile.id}`, { token: outsider.token }), 404, "not-found");
    expectProblem(await api("GET", `/voice-profiles?workspace_id=${ws}`, { token: outsider.token }), 404, "not-found");
    expectProblem(await api("GET", "/voice-profiles/vop_missing", { token: editor.token }), 404, "not-found");
    expectProblem(await api("GET", `/voice-profiles/${profile.id}`), 401, "unauthorized");
  });

  it("422 naming the field for bad definitions and names", async () => {
    const { editor, ws } = await team();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "body.name"],
      [{ name: "x".repeat(100_000) }, "body.name"],
      [{ definition: { ...definition, traits: ["ok", "t".repeat(501)] } }, "body.definition.traits[1]"],
      [{ definition: { ...definition, traits: Array.from({ length: 101 }, (_, i) => `t${i}`) } }, "body.definition.traits"],
      [{ definition: { ...definition, examples: [{ platform: "x", text: 5, why_it_fits: "" }] } }, "body.definition.examples[0].text"],
      [{ definition: { ...definition, identity_summary: "s".repeat(4001) } }, "body.definition.identity_summary"],
      [{ definition: { ...definition, tone: "loud" } }, "body.definition"],
      [{ definition: "casual" }, "body.definition"],
      [{ assigned_account_ids: "acc_1" }, "body.assigned_account_ids"],
    ];
    for (const [patch, location] of cases) {
      const res = await api("POST", "/voice-profiles", { token: editor.token, json: { workspace_id: ws, name: "V", definition, ...patch } });
      expectProblem(res, 422, "validation-error");
      expect(
        res.body.errors.map((e: { location: string }) => e.location),
        JSON.stringify(patch).slice(0, 80),
      ).toContain(location);
      expect(res.text.length).toBeLessThan(5000);
    }
  });
});

describe("voice profiles: replace (PUT)", () => {
  it("replaces name, definition and accounts with optimistic concurrency", async () => {
    const { owner, editor, viewer, ws } = await team();
    const [a1, a2] = [await newAccount(ws, owner), await newAccount(ws, owner)];
    const profile = (await create(editor, ws, "Voice")).body;
    const put = await api("PUT", `/voice-profiles/${profile.id}`, {
      token: editor.token,
      json: { expected_revision: 1, name: "Renamed", definition: { humor: "dry" }, assigned_account_ids: [a2, a1] },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: "Renamed", revision: 2, is_default: true, assigned_account_ids: [a2, a1] });
    expect(put.body.definition).toMatchObject({ humor: "dry", traits: [], formality: "" });
    expect((await api("GET", `/voice-profiles/${profile.id}`, { token: viewer.token })).body).toEqual(put.body);

    const stale = await api("PUT", `/voice-profiles/${profile.id}`, {
      token: editor.token,
      json: { expected_revision: 1, name: "Lost", definition: {}, assigned_account_ids: [] },
    });
    expectProblem(stale, 409, "revision-conflict");
    expect(stale.body.current_revision).toBe(2);
    expect((await api("GET", `/voice-profiles/${profile.id}`, { token: viewer.token })).body.name).toBe("Renamed");

    expectProblem(
      await api("PUT", `/voice-profiles/${profile.id}`, {
        token: viewer.token,
        json: { expected_revision: 2, name: "V", definition: {}, assigned_account_ids: [] },
      }),
      403,
      "forbidden",
    );
    // Replace means every member is given.
    const partial = await api("PUT", `/voice-profiles/${profile.id}`, { token: editor.token, json: { expected_revision: 2, name: "V", definition: {} } });
    expectProblem(partial, 422, "validation-error");
    expect(partial.body.errors[0].location).toBe("body.assigned_account_ids");

    const audits = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, profile.id), eq(auditEvents.action, "voice_profile.update"))),
    );
    expect(audits).toHaveLength(1);
  });

  it("assigned accounts must belong to the same workspace (422 naming the index) and to no other profile (409)", async () => {
    const { owner, editor, ws } = await team();
    const other = await newWorkspace(owner);
    const mine = await newAccount(ws, owner);
    const foreign = await newAccount(other, owner);
    const profile = (await create(editor, ws, "Voice")).body;
    const body = (ids: string[]) => ({ expected_revision: 1, name: "Voice", definition: {}, assigned_account_ids: ids });

    const bad = await api("PUT", `/voice-profiles/${profile.id}`, { token: editor.token, json: body([mine, foreign, "acc_nonexistent"]) });
    expectProblem(bad, 422, "validation-error");
    expect(bad.body.errors.map((e: { location: string }) => e.location)).toEqual(["body.assigned_account_ids[1]", "body.assigned_account_ids[2]"]);
    const twice = await api("PUT", `/voice-profiles/${profile.id}`, { token: editor.token, json: body([mine, mine]) });
    expect(twice.body.errors[0].location).toBe("body.assigned_account_ids[1]");
    expect(slugOf(await create(editor, ws, "V2", { assigned_account_ids: [foreign] }).then((r) => r.body))).toBe("validation-error");

    expect((await api("PUT", `/voice-profiles/${profile.id}`, { token: editor.token, json: body([mine]) })).status).toBe(200);
    const clash = await create(editor, ws, "Second", { assigned_account_ids: [mine] });
    expectProblem(clash, 409, "conflict");
    expect(clash.body.errors[0]).toMatchObject({ location: "body.assigned_account_ids[0]", value: mine });
    // The same profile may keep its own account on the next replace.
    expect((await api("PUT", `/voice-profiles/${profile.id}`, { token: editor.token, json: { ...body([mine]), expected_revision: 2 } })).status).toBe(200);

    // Resolution for builds: an assigned account gets its profile, any other the default.
    const second = (await create(editor, ws, "Second")).body;
    const spare = await newAccount(ws, owner);
    await api("PUT", `/voice-profiles/${second.id}`, { token: editor.token, json: { ...body([spare]), expected_revision: 1 } });
    const voices = await withDb((db) => voicesForAccounts(db, ws, [mine, spare, "acc_unassigned"]));
    expect([voices.get(mine)?.id, voices.get(spare)?.id, voices.get("acc_unassigned")?.id]).toEqual([profile.id, second.id, profile.id]);
  });

  it("of 8 concurrent replaces holding the same revision exactly one wins", async () => {
    const { editor, ws } = await team();
    const profile = (await create(editor, ws, "Voice")).body;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api("PUT", `/voice-profiles/${profile.id}`, {
          token: editor.token,
          json: { expected_revision: 1, name: `Writer ${i}`, definition: {}, assigned_account_ids: [] },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.current_revision === 2)).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const final = await api("GET", `/voice-profiles/${profile.id}`, { token: editor.token });
    expect(final.body.revision).toBe(2);
    expect(final.body.name).toBe(results.find((r) => r.status === 200)!.body.name);
  });
});
