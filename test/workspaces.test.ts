import { describe, expect, it } from "vitest";
import { api, newUser, newWorkspace, slugOf } from "./helpers/harness";

describe("workspaces", () => {
  it("creates a workspace owned by the caller and lists it", async () => {
    const user = await newUser();
    const created = await api("POST", "/workspaces", { token: user.token, json: { name: "Launch team" } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: "Launch team", role: "owner", revision: 1, id: expect.stringMatching(/^wsp_/) });
    const list = await api("GET", "/workspaces", { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([created.body.id]);
    expect(list.body[0].$schema).toMatch(/\/api\/v1\/schemas\/Workspace\.json$/);
  });

  it("admins add members; the four roles gate what members may do", async () => {
    const owner = await newUser();
    const admin = await newUser();
    const editor = await newUser();
    const viewer = await newUser();
    const outsider = await newUser();
    const ws = await newWorkspace(owner, [{ id: admin.id, role: "admin" }]);

    const addEditor = await api("POST", `/workspaces/${ws}/members`, { token: admin.token, json: { user_id: editor.id, role: "editor" } });
    expect(addEditor.status, addEditor.text).toBe(201);
    expect(addEditor.body).toMatchObject({ workspace_id: ws, user_id: editor.id, role: "editor" });
    expect((await api("POST", `/workspaces/${ws}/members`, { token: owner.token, json: { user_id: viewer.id, role: "viewer" } })).status).toBe(201);

    // An admin cannot mint owners; editors and viewers cannot add anyone.
    const adminAddsOwner = await api("POST", `/workspaces/${ws}/members`, { token: admin.token, json: { user_id: outsider.id, role: "owner" } });
    expect(adminAddsOwner.status).toBe(403);
    const editorAdds = await api("POST", `/workspaces/${ws}/members`, { token: editor.token, json: { user_id: outsider.id, role: "viewer" } });
    expect(editorAdds.status).toBe(403);
    expect(slugOf(editorAdds.body)).toBe("forbidden");
    // Outsiders are told nothing exists.
    const outsiderAdds = await api("POST", `/workspaces/${ws}/members`, { token: outsider.token, json: { user_id: outsider.id, role: "viewer" } });
    expect(outsiderAdds.status).toBe(404);
    expect(slugOf(outsiderAdds.body)).toBe("not-found");
    // A second add of the same member is a conflict; an unknown user is a validation error.
    expect((await api("POST", `/workspaces/${ws}/members`, { token: owner.token, json: { user_id: editor.id, role: "viewer" } })).status).toBe(409);
    const ghost = await api("POST", `/workspaces/${ws}/members`, { token: owner.token, json: { user_id: "usr_nobody", role: "viewer" } });
    expect(ghost.status).toBe(422);
    expect(ghost.body.errors[0].location).toBe("body.user_id");

    const viewerList = await api("GET", "/workspaces", { token: viewer.token });
    expect(viewerList.body).toEqual([expect.objectContaining({ id: ws, role: "viewer" })]);
  });

  it("renames with optimistic concurrency: stale revisions get 409 with current_revision and change nothing", async () => {
    const owner = await newUser();
    const ws = (await api("POST", "/workspaces", { token: owner.token, json: { name: "Before" } })).body;
    const renamed = await api("PATCH", `/workspaces/${ws.id}`, { token: owner.token, json: { expected_revision: 1, name: "After" } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: "After", revision: 2 });
    const stale = await api("PATCH", `/workspaces/${ws.id}`, { token: owner.token, json: { expected_revision: 1, name: "Lost" } });
    expect(stale.status).toBe(409);
    expect(slugOf(stale.body)).toBe("revision-conflict");
    expect(stale.body.current_revision).toBe(2);
    const list = await api("GET", "/workspaces", { token: owner.token });
    expect(list.body[0]).toMatchObject({ name: "After", revision: 2 });
  });

  it("of ten concurrent writers holding the same revision exactly one succeeds", async () => {
    const owner = await newUser();
    const ws = (await api("POST", "/workspaces", { token: owner.token, json: { name: "Race" } })).body;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api("PATCH", `/workspaces/${ws.id}`, { token: owner.token, json: { expected_revision: 1, name: `Writer ${i}` } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    const list = await api("GET", "/workspaces", { token: owner.token });
    expect(list.body[0].revision).toBe(2);
  });
});
