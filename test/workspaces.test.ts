import { describe, expect, it } from "vitest";
import { client } from "./helpers/client";
import { newUser, newWorkspace, slugOf } from "./helpers/harness";
import { expectData, expectError, type Schemas } from "./helpers/typed";

describe("workspaces", () => {
  it("creates a workspace owned by the caller and lists it", async () => {
    const user = await newUser();
    const c = client(user.token);
    const created = expectData(await c.POST("/workspaces", { body: { name: "Launch team" } }), 201);
    expect(created).toMatchObject({ name: "Launch team", role: "owner", revision: 1, id: expect.stringMatching(/^wsp_/) });
    const list = expectData(await c.GET("/workspaces"));
    expect(list.map((w) => w.id)).toEqual([created.id]);
    expect(list[0].$schema).toMatch(/\/api\/v1\/schemas\/Workspace\.json$/);
  });

  it("admins add members; the four roles gate what members may do", async () => {
    const owner = await newUser();
    const admin = await newUser();
    const editor = await newUser();
    const viewer = await newUser();
    const outsider = await newUser();
    const ws = await newWorkspace(owner, [{ id: admin.id, role: "admin" }]);
    const addMember = (token: string, user_id: string, role: Schemas["AddMemberRequest"]["role"]) =>
      client(token).POST("/workspaces/{id}/members", { params: { path: { id: ws } }, body: { user_id, role } });

    const addEditor = expectData(await addMember(admin.token, editor.id, "editor"), 201);
    expect(addEditor).toMatchObject({ workspace_id: ws, user_id: editor.id, role: "editor" });
    expect((await addMember(owner.token, viewer.id, "viewer")).response.status).toBe(201);

    // An admin cannot mint owners; editors and viewers cannot add anyone.
    const adminAddsOwner = await addMember(admin.token, outsider.id, "owner");
    expect(adminAddsOwner.response.status).toBe(403);
    const editorAdds = await addMember(editor.token, outsider.id, "viewer");
    expect(slugOf(expectError(editorAdds, 403))).toBe("forbidden");
    // Outsiders are told nothing exists.
    const outsiderAdds = await addMember(outsider.token, outsider.id, "viewer");
    expect(slugOf(expectError(outsiderAdds, 404))).toBe("not-found");
    // A second add of the same member is a conflict; an unknown user is a validation error.
    expect((await addMember(owner.token, editor.id, "viewer")).response.status).toBe(409);
    const ghost = await addMember(owner.token, "usr_nobody", "viewer");
    expect(expectError(ghost, 422).errors?.[0].location).toBe("body.user_id");

    const viewerList = await client(viewer.token).GET("/workspaces");
    expect(viewerList.data).toEqual([expect.objectContaining({ id: ws, role: "viewer" })]);
  });

  it("renames with optimistic concurrency: stale revisions get 409 with current_revision and change nothing", async () => {
    const owner = await newUser();
    const c = client(owner.token);
    const ws = expectData(await c.POST("/workspaces", { body: { name: "Before" } }), 201);
    const renamed = expectData(await c.PATCH("/workspaces/{id}", { params: { path: { id: ws.id } }, body: { expected_revision: 1, name: "After" } }));
    expect(renamed).toMatchObject({ name: "After", revision: 2 });
    const stale = await c.PATCH("/workspaces/{id}", { params: { path: { id: ws.id } }, body: { expected_revision: 1, name: "Lost" } });
    const problem = expectError(stale, 409);
    expect(slugOf(problem)).toBe("revision-conflict");
    expect(problem.current_revision).toBe(2);
    const list = await c.GET("/workspaces");
    expect(list.data?.[0]).toMatchObject({ name: "After", revision: 2 });
  });

  it("of ten concurrent writers holding the same revision exactly one succeeds", async () => {
    const owner = await newUser();
    const c = client(owner.token);
    const ws = expectData(await c.POST("/workspaces", { body: { name: "Race" } }), 201);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        c.PATCH("/workspaces/{id}", { params: { path: { id: ws.id } }, body: { expected_revision: 1, name: `Writer ${i}` } }),
      ),
    );
    const statuses = results.map((r) => r.response.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    const list = await c.GET("/workspaces");
    expect(list.data?.[0].revision).toBe(2);
  });
});
