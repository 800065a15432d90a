import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, workspaceMembers, type Role } from "../db/schema";
import { client } from "./helpers/client";
import { api, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { expectData, expectProblem } from "./helpers/typed";

/** CONTRACT §9 "Teams": listing members, changing roles, removing and leaving, the last owner kept. */

const members = (token: string, id: string) => client(token).GET("/workspaces/{id}/members", { params: { path: { id } } });
const setRole = (token: string, id: string, userId: string, role: Role) =>
  client(token).PATCH("/workspaces/{id}/members/{user_id}", { params: { path: { id, user_id: userId } }, body: { role } });
const remove = (token: string, id: string, userId: string) =>
  client(token).DELETE("/workspaces/{id}/members/{user_id}", { params: { path: { id, user_id: userId } } });

async function team() {
  const [owner, admin, editor, viewer, stranger] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, admin, editor, viewer, stranger, ws };
}

const rolesIn = (ws: string) =>
  withDb(async (db) =>
    Object.fromEntries((await db.select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, ws))).map((m) => [m.userId, m.role])),
  );

describe("GET /workspaces/{id}/members", () => {
  it("lists every member to any member, oldest first; e-mail addresses only to admins and owners", async () => {
    const [owner, admin, editor, viewer] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
    const ws = await newWorkspace(owner);
    // Added one after the other, so that each joined later than the one before.
    for (const [person, role] of [
      [admin, "admin"],
      [editor, "editor"],
      [viewer, "viewer"],
    ] as const)
      expectData(await client(owner.token).POST("/workspaces/{id}/members", { params: { path: { id: ws } }, body: { user_id: person.id, role } }), 201);
    const seenByViewer = expectData(await members(viewer.token, ws));
    expect(seenByViewer.map((m) => m.user_id)).toEqual([owner.id, admin.id, editor.id, viewer.id]);
    expect(seenByViewer[0]).toEqual({
      $schema: expect.stringMatching(/\/api\/v1\/schemas\/Member\.json$/),
      workspace_id: ws,
      user_id: owner.id,
      display_name: "Test User",
      role: "owner",
      created_at: expect.any(String),
    });
    expect(seenByViewer.every((m) => m.email === undefined)).toBe(true);
    const seenByAdmin = expectData(await members(admin.token, ws));
    expect(seenByAdmin.map((m) => [m.user_id, m.role, m.email])).toEqual([
      [owner.id, "owner", owner.email],
      [admin.id, "admin", admin.email],
      [editor.id, "editor", editor.email],
      [viewer.id, "viewer", viewer.email],
    ]);
  });

  it("is 404 to someone outside the workspace, and for a workspace that does not exist", async () => {
    const { stranger, ws } = await team();
    expectProblem(await members(stranger.token, ws), 404, "not-found");
    expectProblem(await members(stranger.token, "wsp_doesnotexist"), 404, "not-found");
  });
});

describe("PATCH /workspaces/{id}/members/{user_id}", () => {
  it("an admin changes a role; the member's next request is judged by it, and the change is audited by id", async () => {
    const { owner, admin, editor, ws } = await team();
    const changed = expectData(await setRole(admin.token, ws, editor.id, "viewer"));
    expect(changed).toMatchObject({ workspace_id: ws, user_id: editor.id, role: "viewer", email: editor.email });
    expectProblem(await setRole(editor.token, ws, owner.id, "viewer"), 403, "forbidden");
    expect((await rolesIn(ws))[editor.id]).toBe("viewer");
    // A demoted admin is refused at once.
    expectData(await setRole(owner.token, ws, admin.id, "editor"));
    expectProblem(await setRole(admin.token, ws, editor.id, "editor"), 403, "forbidden");
    const events = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, ws), eq(auditEvents.action, "workspace.member.role"))),
    );
    expect(events.map((e) => [e.actorUserId, e.targetType, e.targetId])).toEqual([
      [admin.id, "user", editor.id],
      [owner.id, "user", admin.id],
    ]);
  });

  it("below admin → 403; only an owner grants or takes owner", async () => {
    const { owner, admin, editor, viewer, ws } = await team();
    expectProblem(await setRole(editor.token, ws, viewer.id, "editor"), 403, "forbidden");
    expectProblem(await setRole(viewer.token, ws, viewer.id, "admin"), 403, "forbidden");
    expectProblem(await setRole(admin.token, ws, editor.id, "owner"), 403, "forbidden");
    expectProblem(await setRole(admin.token, ws, owner.id, "admin"), 403, "forbidden");
    expect(expectData(await setRole(owner.token, ws, admin.id, "owner")).role).toBe("owner");
    // Now an owner, the former admin may take owner from the first one.
    expect(expectData(await setRole(admin.token, ws, owner.id, "admin")).role).toBe("admin");
    expect(await rolesIn(ws)).toMatchObject({ [owner.id]: "admin", [admin.id]: "owner" });
  });

  it("another workspace or an unknown member → 404; a bad role → 422", async () => {
    const { owner, stranger, ws } = await team();
    const theirs = await newWorkspace(stranger);
    expectProblem(await setRole(owner.token, theirs, stranger.id, "viewer"), 404, "not-found");
    expectProblem(await setRole(owner.token, ws, stranger.id, "viewer"), 404, "not-found");
    // Outside the typed client: its types refuse a role that is not one.
    const bad = await api("PATCH", `/workspaces/${ws}/members/${owner.id}`, { token: owner.token, json: { role: "superuser" } });
    expectRawProblem(bad, 422, "validation-error");
    expect(bad.body.errors[0].location).toBe("body.role");
  });

  it("the last owner cannot be demoted (409 conflict); with a second owner, they can", async () => {
    const { owner, admin, ws } = await team();
    expectProblem(await setRole(owner.token, ws, owner.id, "admin"), 409, "conflict");
    expectData(await setRole(owner.token, ws, admin.id, "owner"));
    expect(expectData(await setRole(owner.token, ws, owner.id, "admin")).role).toBe("admin");
    expectProblem(await setRole(admin.token, ws, admin.id, "editor"), 409, "conflict");
  });

  it("of the last two owners demoting each other or themselves at the same moment, exactly one succeeds", async () => {
    for (let round = 0; round < 4; round++) {
      const [a, b] = await Promise.all([newUser(), newUser()]);
      const ws = await newWorkspace(a, [{ id: b.id, role: "owner" }]);
      const answers = await Promise.all([
        round < 2 ? setRole(a.token, ws, b.id, "admin") : setRole(a.token, ws, a.id, "admin"),
        round < 2 ? setRole(b.token, ws, a.id, "admin") : setRole(b.token, ws, b.id, "admin"),
      ]);
      const statuses = answers.map((r) => r.response.status).sort();
      // Stepping down: the second finds itself the last owner (409). Demoting each other: the second was demoted a
      // moment before and is no longer an owner, who alone takes owner (403).
      expect(statuses, `round ${round}`).toEqual(round < 2 ? [200, 403] : [200, 409]);
      const roles = Object.values(await rolesIn(ws));
      expect(
        roles.filter((r) => r === "owner"),
        `round ${round}`,
      ).toHaveLength(1);
    }
  });
});

describe("DELETE /workspaces/{id}/members/{user_id}", () => {
  it("an admin removes a member, whose next request is 404; audited by id", async () => {
    const { admin, editor, ws } = await team();
    const res = await remove(admin.token, ws, editor.id);
    expect(res.response.status).toBe(204);
    expectProblem(await members(editor.token, ws), 404, "not-found");
    const [event] = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.workspaceId, ws), eq(auditEvents.action, "workspace.member.remove"))),
    );
    expect(event).toMatchObject({ actorUserId: admin.id, targetType: "user", targetId: editor.id });
  });

  it("any member may leave; removing someone else needs admin (403), and an owner needs an owner", async () => {
    const { owner, admin, editor, viewer, ws } = await team();
    expectProblem(await remove(viewer.token, ws, editor.id), 403, "forbidden");
    expectProblem(await remove(editor.token, ws, viewer.id), 403, "forbidden");
    expectProblem(await remove(admin.token, ws, owner.id), 403, "forbidden");
    expect((await remove(viewer.token, ws, viewer.id)).response.status).toBe(204);
    expect((await remove(editor.token, ws, editor.id)).response.status).toBe(204);
    expect(Object.keys(await rolesIn(ws)).sort()).toEqual([owner.id, admin.id].sort());
  });

  it("the last owner can neither leave nor be removed (409); another workspace or a non-member → 404", async () => {
    const { owner, admin, stranger, ws } = await team();
    expectProblem(await remove(owner.token, ws, owner.id), 409, "conflict");
    expectProblem(await remove(stranger.token, ws, admin.id), 404, "not-found");
    expectProblem(await remove(owner.token, ws, stranger.id), 404, "not-found");
    expectData(await setRole(owner.token, ws, admin.id, "owner"));
    expect((await remove(owner.token, ws, owner.id)).response.status).toBe(204);
    expectProblem(await remove(admin.token, ws, admin.id), 409, "conflict");
  });
});
