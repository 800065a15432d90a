import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, voiceProfiles } from "../db/schema";
import { api, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { expectData, expectProblem, type Schemas } from "./helpers/typed";

type User = Awaited<ReturnType<typeof newUser>>;

async function team() {
  const [owner, admin, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, admin, editor, viewer, outsider, ws };
}

/**
 * POST /voice-profiles with `definition: {}`. The document lets every member of VoiceDefinitionInput (and
 * `assigned_account_ids`) be left out, each having a default, but the generated types make every member with a
 * default required (openapi-typescript's `defaultNonNullable`), so this body, valid by the document, goes raw.
 */
const postEmptyDefinition = (user: User, ws: string, name: string) =>
  api<Schemas["VoiceProfile"]>("POST", "/voice-profiles", { token: user.token, json: { workspace_id: ws, name, definition: {} } });
const create = async (user: User, ws: string, name: string) => {
  const res = await postEmptyDefinition(user, ws, name);
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const get = async (user: User, id: string) => (await client(user.token).GET("/voice-profiles/{id}", { params: { path: { id } } })).data;
const setDefault = (user: User, id: string, ws: string, expected_revision: number) =>
  client(user.token).POST("/voice-profiles/{id}/default", { params: { path: { id } }, body: { expected_revision, workspace_id: ws } });
const remove = (user: User, id: string, expected_revision: number) =>
  client(user.token).DELETE("/voice-profiles/{id}", { params: { path: { id }, query: { expected_revision } } });

const defaultsOf = (ws: string) =>
  withDb((db) =>
    db
      .select({ id: voiceProfiles.id })
      .from(voiceProfiles)
      .where(and(eq(voiceProfiles.workspaceId, ws), eq(voiceProfiles.isDefault, true))),
  );

describe("voice profiles: the workspace default", () => {
  it("moves the default in one change: both profiles' revisions grow, exactly one default remains", async () => {
    const { admin, editor, ws } = await team();
    const a = await create(editor, ws, "A");
    const b = await create(editor, ws, "B");
    expect([a.is_default, b.is_default]).toEqual([true, false]);

    const res = expectData(await setDefault(admin, b.id, ws, 1));
    expect(res).toMatchObject({ $schema: expect.stringMatching(/VoiceProfile\.json$/), id: b.id, is_default: true, revision: 2 });
    expect(await get(admin, a.id)).toMatchObject({ is_default: false, revision: 2 });
    expect(await defaultsOf(ws)).toEqual([{ id: b.id }]);

    // Again on the current default: nothing changes.
    const again = await setDefault(admin, b.id, ws, 2);
    expect(again.response.status).toBe(200);
    expect(again.data).toMatchObject({ is_default: true, revision: 2 });

    const trail = await withDb((db) =>
      db.select({ action: auditEvents.action, target: auditEvents.targetId }).from(auditEvents).where(eq(auditEvents.workspaceId, ws)),
    );
    expect(trail).toEqual(
      expect.arrayContaining([
        { action: "voice_profile.default.set", target: b.id },
        { action: "voice_profile.default.unset", target: a.id },
      ]),
    );
    expect(trail.filter((t) => t.action === "voice_profile.default.set")).toHaveLength(1);
  });

  it("admin or owner only; stale revisions, foreign workspaces and mismatched workspace_id are refused", async () => {
    const { owner, admin, editor, viewer, outsider, ws } = await team();
    await create(editor, ws, "A");
    const b = await create(editor, ws, "B");
    expectProblem(await setDefault(editor, b.id, ws, 1), 403, "forbidden");
    expectProblem(await setDefault(viewer, b.id, ws, 1), 403, "forbidden");
    expectProblem(await setDefault(outsider, b.id, ws, 1), 404, "not-found");
    const stale = await setDefault(admin, b.id, ws, 7);
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(1);
    // The profile must belong to the workspace named in the body.
    const elsewhere = await newWorkspace(admin);
    expectProblem(await setDefault(admin, b.id, elsewhere, 1), 404, "not-found");
    expectProblem(await setDefault(admin, "vop_missing", ws, 1), 404, "not-found");
    expect((await setDefault(owner, b.id, ws, 1)).response.status).toBe(200);
  });

  it("10 concurrent switches across 4 profiles leave exactly one default, and it is one a switch made", async () => {
    const { admin, editor, ws } = await team();
    const profiles: Awaited<ReturnType<typeof create>>[] = [];
    for (const name of ["A", "B", "C", "D"]) profiles.push(await create(editor, ws, name));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const target = profiles[i % profiles.length];
        return setDefault(admin, target.id, ws, target.revision).then((res) => ({ target: target.id, res }));
      }),
    );
    for (const { res } of results) expect([200, 409], JSON.stringify(res.error)).toContain(res.response.status);
    const winners = results.filter((r) => r.res.response.status === 200);
    expect(winners.length).toBeGreaterThan(0);
    const defaults = await defaultsOf(ws);
    expect(defaults).toHaveLength(1);
    expect(winners.map((w) => w.target)).toContain(defaults[0].id);
    const listed = await client(admin.token).GET("/voice-profiles", { params: { query: { workspace_id: ws } } });
    expect(listed.data?.filter((p) => p.is_default)).toHaveLength(1);
  });

  it("the database itself refuses a second default", async () => {
    const { editor, ws } = await team();
    await create(editor, ws, "A");
    const b = await create(editor, ws, "B");
    await expect(withDb((db) => db.update(voiceProfiles).set({ isDefault: true }).where(eq(voiceProfiles.id, b.id)))).rejects.toThrow();
    expect(await defaultsOf(ws)).toHaveLength(1);
  });

  it("10 concurrent first creations in an empty workspace make exactly one default", async () => {
    const { editor, ws } = await team();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => postEmptyDefinition(editor, ws, `V${i}`)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(results.filter((r) => r.body.is_default)).toHaveLength(1);
    expect(await defaultsOf(ws)).toHaveLength(1);
  });
});

describe("voice profiles: delete", () => {
  it("deletes with expected_revision; the default goes only when it is the last profile", async () => {
    const { admin, editor, viewer, outsider, ws } = await team();
    const a = await create(editor, ws, "A");
    const b = await create(editor, ws, "B");

    expectProblem(await remove(viewer, b.id, 1), 403, "forbidden");
    expectProblem(await remove(outsider, b.id, 1), 404, "not-found");
    const stale = await remove(editor, b.id, 5);
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(1);
    expectProblem(await remove(editor, b.id, 0), 422, "validation-error");
    // Without the required expected_revision, which the typed client forbids: sent raw.
    expectRawProblem(await api("DELETE", `/voice-profiles/${b.id}`, { token: editor.token }), 422, "validation-error");

    expectProblem(await remove(editor, a.id, 1), 409, "not-editable");
    expect(await defaultsOf(ws)).toEqual([{ id: a.id }]);

    const deleted = await remove(editor, b.id, 1);
    expect(deleted.response.status, JSON.stringify(deleted.error)).toBe(204);
    expectProblem(await client(editor.token).GET("/voice-profiles/{id}", { params: { path: { id: b.id } } }), 404, "not-found");
    // Now the default is the only profile and may go.
    expect((await remove(admin, a.id, 1)).response.status).toBe(204);
    expect(await defaultsOf(ws)).toEqual([]);
    // The next profile created becomes the default again.
    expect((await create(editor, ws, "C")).is_default).toBe(true);

    const trail = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, ws), eq(auditEvents.action, "voice_profile.delete"))),
    );
    expect(trail.map((t) => t.targetId).sort()).toEqual([a.id, b.id].sort());
  });
});
