import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, socialAccounts } from "../db/schema";
import { newId } from "../lib/ids";
import { voicesForAccounts } from "../lib/voice/store";
import { api, newUser, newWorkspace, slugOf, withDb, expectProblem as expectRawProblem } from "./helpers/harness";
import { client } from "./helpers/client";
import { expectData, expectProblem, type Problem, type Schemas } from "./helpers/typed";

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

/*
 * POST and PUT /voice-profiles bodies in this file leave out members of `definition` (and `assigned_account_ids` on
 * create), as the document allows (each member has a default), but the generated types make every member with a
 * default required (openapi-typescript's `defaultNonNullable`), so those bodies go raw, their answers typed by what
 * each test expects (VoiceProfile by default, Problem where it expects a refusal). Reads go through the typed client.
 */
const create = <T = Schemas["VoiceProfile"]>(user: User, ws: string, name: string, extra: Record<string, unknown> = {}) =>
  api<T>("POST", "/voice-profiles", { token: user.token, json: { workspace_id: ws, name, definition, ...extra } });
const replace = <T = Schemas["VoiceProfile"]>(user: User, id: string, json: Record<string, unknown>) =>
  api<T>("PUT", `/voice-profiles/${id}`, { token: user.token, json });
const read = (id: string, token?: string) => client(token).GET("/voice-profiles/{id}", { params: { path: { id } } });
const list = (token: string, query: { workspace_id: string; limit?: number; cursor?: string }) => client(token).GET("/voice-profiles", { params: { query } });

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

    const got = await read(second.body.id, viewer.token);
    expect(got.response.status).toBe(200);
    expect(got.data).toEqual(second.body);

    const listed = await list(viewer.token, { workspace_id: ws });
    expect(listed.response.status).toBe(200);
    expect(listed.data?.map((p) => p.id)).toEqual([first.body.id, second.body.id]);
    expect(listed.data?.every((p) => p.$schema.endsWith("/VoiceProfile.json"))).toBe(true);

    const page = await list(viewer.token, { workspace_id: ws, limit: 1 });
    expect(page.data).toHaveLength(1);
    const next = /<([^>]+)>; rel="next"/.exec(page.response.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    // The next page is the Link's query (same workspace and limit) with its cursor.
    const nextQuery = new URL(next!).searchParams;
    expect(new URL(next!).pathname).toMatch(/\/voice-profiles$/);
    expect([nextQuery.get("workspace_id"), nextQuery.get("limit")]).toEqual([ws, "1"]);
    const rest = await list(viewer.token, { workspace_id: ws, limit: 1, cursor: nextQuery.get("cursor") ?? undefined });
    expect(rest.data?.map((p) => p.id)).toEqual([second.body.id]);

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
    expectRawProblem(await create<Problem>(viewer, ws, "Nope"), 403, "forbidden");
    expectRawProblem(await create<Problem>(outsider, ws, "Nope"), 404, "not-found");
    const profile = (await create(editor, ws, "Mine")).body;
    expectProblem(await read(profile.id, outsider.token), 404, "not-found");
    expectProblem(await list(outsider.token, { workspace_id: ws }), 404, "not-found");
    expectProblem(await read("vop_missing", editor.token), 404, "not-found");
    expectProblem(await read(profile.id), 401, "unauthorized");
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
      // Deliberately malformed bodies (wrong types, too long, unknown members): sent raw.
      const res = await api<Problem>("POST", "/voice-profiles", { token: editor.token, json: { workspace_id: ws, name: "V", definition, ...patch } });
      expectRawProblem(res, 422, "validation-error");
      expect(
        res.body.errors?.map((e) => e.location),
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
    const put = await replace(editor, profile.id, { expected_revision: 1, name: "Renamed", definition: { humor: "dry" }, assigned_account_ids: [a2, a1] });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: "Renamed", revision: 2, is_default: true, assigned_account_ids: [a2, a1] });
    expect(put.body.definition).toMatchObject({ humor: "dry", traits: [], formality: "" });
    expect((await read(profile.id, viewer.token)).data).toEqual(put.body);

    const stale = await replace<Problem>(editor, profile.id, { expected_revision: 1, name: "Lost", definition: {}, assigned_account_ids: [] });
    expectRawProblem(stale, 409, "revision-conflict");
    expect(stale.body.current_revision).toBe(2);
    expect((await read(profile.id, viewer.token)).data?.name).toBe("Renamed");

    expectRawProblem(
      await replace<Problem>(viewer, profile.id, { expected_revision: 2, name: "V", definition: {}, assigned_account_ids: [] }),
      403,
      "forbidden",
    );
    // Replace means every member is given.
    const partial = await replace<Problem>(editor, profile.id, { expected_revision: 2, name: "V", definition: {} });
    expectRawProblem(partial, 422, "validation-error");
    expect(partial.body.errors?.[0].location).toBe("body.assigned_account_ids");

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

    const bad = await replace<Problem>(editor, profile.id, body([mine, foreign, "acc_nonexistent"]));
    expectRawProblem(bad, 422, "validation-error");
    expect(bad.body.errors?.map((e) => e.location)).toEqual(["body.assigned_account_ids[1]", "body.assigned_account_ids[2]"]);
    const twice = await replace<Problem>(editor, profile.id, body([mine, mine]));
    expect(twice.body.errors?.[0].location).toBe("body.assigned_account_ids[1]");
    expect(slugOf(await create<Problem>(editor, ws, "V2", { assigned_account_ids: [foreign] }).then((r) => r.body))).toBe("validation-error");

    expect((await replace(editor, profile.id, body([mine]))).status).toBe(200);
    const clash = await create<Problem>(editor, ws, "Second", { assigned_account_ids: [mine] });
    expectRawProblem(clash, 409, "conflict");
    expect(clash.body.errors?.[0]).toMatchObject({ location: "body.assigned_account_ids[0]", value: mine });
    // The same profile may keep its own account on the next replace.
    expect((await replace(editor, profile.id, { ...body([mine]), expected_revision: 2 })).status).toBe(200);

    // Resolution for builds: an assigned account gets its profile, any other the default.
    const second = (await create(editor, ws, "Second")).body;
    const spare = await newAccount(ws, owner);
    await replace(editor, second.id, { ...body([spare]), expected_revision: 1 });
    const voices = await withDb((db) => voicesForAccounts(db, ws, [mine, spare, "acc_unassigned"]));
    expect([voices.get(mine)?.id, voices.get(spare)?.id, voices.get("acc_unassigned")?.id]).toEqual([profile.id, second.id, profile.id]);
  });

  it("of 8 concurrent replaces holding the same revision exactly one wins", async () => {
    const { editor, ws } = await team();
    const profile = (await create(editor, ws, "Voice")).body;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        replace<Schemas["VoiceProfile"] | Problem>(editor, profile.id, { expected_revision: 1, name: `Writer ${i}`, definition: {}, assigned_account_ids: [] }),
      ),
    );
    const won = results.filter((r) => r.status === 200).map((r) => r.body);
    const lost = results.filter((r) => r.status === 409).map((r) => r.body);
    expect(won).toHaveLength(1);
    expect(lost.every((p) => "current_revision" in p && p.current_revision === 2)).toBe(true);
    expect(lost).toHaveLength(7);
    const final = expectData(await read(profile.id, editor.token));
    expect(final.revision).toBe(2);
    expect("name" in won[0] && won[0].name).toBe(final.name);
  });
});
