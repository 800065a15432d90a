import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, invitations, users, workspaceMembers, type Role } from "../db/schema";
import { openSession } from "../lib/auth/sessions";
import { client } from "./helpers/client";
import { api, env, expectProblem as expectRawProblem, newUser, newWorkspace, withDb } from "./helpers/harness";
import { expectData, expectProblem } from "./helpers/typed";

/** CONTRACT §9 "Teams": invitations made, listed, revoked and accepted, by a member or by a new person. */

const invite = (token: string, id: string, email: string, role: Role = "editor") =>
  client(token).POST("/workspaces/{id}/invitations", { params: { path: { id } }, body: { email, role } });
const list = (token: string, id: string) => client(token).GET("/workspaces/{id}/invitations", { params: { path: { id } } });
const revoke = (token: string, id: string, invitationId: string) =>
  client(token).DELETE("/workspaces/{id}/invitations/{invitation_id}", { params: { path: { id, invitation_id: invitationId } } });
const accept = (body: { token: string; display_name?: string }, as?: string) => client(as).POST("/invitations/accept", { body });

const ORIGIN = new URL(env.PUBLIC_BASE_URL!).origin;
const freshEmail = () => `invited-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;

async function team() {
  const [owner, admin, editor, stranger] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: admin.id, role: "admin" },
    { id: editor.id, role: "editor" },
  ]);
  return { owner, admin, editor, stranger, ws };
}

const auditOf = (targetId: string) => withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, targetId)));

describe("creating and listing invitations", () => {
  it("an admin invites: the token is shown once, stored hashed, listed without it, audited by id only", async () => {
    const { admin, ws } = await team();
    const email = freshEmail();
    const made = expectData(await invite(admin.token, ws, email, "viewer"), 201);
    expect(made).toMatchObject({ workspace_id: ws, email, role: "viewer", id: expect.stringMatching(/^inv_/), token: expect.stringMatching(/^hli_/) });
    const days = (Date.parse(made.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);
    const [stored] = await withDb((db) => db.select().from(invitations).where(eq(invitations.id, made.id)));
    expect(JSON.stringify(stored)).not.toContain(made.token);
    const listed = expectData(await list(admin.token, ws));
    expect(listed).toEqual([
      {
        $schema: expect.stringMatching(/\/api\/v1\/schemas\/Invitation\.json$/),
        id: made.id,
        workspace_id: ws,
        email,
        role: "viewer",
        status: "pending",
        created_at: expect.any(String),
        expires_at: made.expires_at,
      },
    ]);
    const events = await auditOf(made.id);
    expect(events.map((e) => [e.action, e.actorUserId, e.targetType])).toEqual([["invitation.create", admin.id, "invitation"]]);
    expect(JSON.stringify(events)).not.toContain(made.token);
    expect(JSON.stringify(events)).not.toContain(email);
  });

  it("below admin → 403, another workspace → 404, owner only by an owner, bad input → 422, a member already → 409", async () => {
    const { owner, admin, editor, stranger, ws } = await team();
    expectProblem(await invite(editor.token, ws, freshEmail()), 403, "forbidden");
    expectProblem(await list(editor.token, ws), 403, "forbidden");
    expectProblem(await invite(stranger.token, ws, freshEmail()), 404, "not-found");
    expectProblem(await list(stranger.token, ws), 404, "not-found");
    expectProblem(await invite(admin.token, ws, freshEmail(), "owner"), 403, "forbidden");
    expect(expectData(await invite(owner.token, ws, freshEmail(), "owner"), 201).role).toBe("owner");
    expectProblem(await invite(admin.token, ws, editor.email.toUpperCase()), 409, "conflict");
    const bad = await api("POST", `/workspaces/${ws}/invitations`, { token: admin.token, json: { email: "not an address", role: "editor" } });
    expectRawProblem(bad, 422, "validation-error");
    expect(bad.body.errors[0].location).toBe("body.email");
  });
});

describe("accepting", () => {
  it("a new person (not signed in) becomes a user and a member, with a first token that works; the invitation is spent", async () => {
    const { admin, ws } = await team();
    const email = freshEmail();
    const made = expectData(await invite(admin.token, ws, email, "editor"), 201);
    const res = await accept({ token: made.token, display_name: "New Teammate" });
    expect(res.response.status).toBe(201);
    const joined = res.data;
    if (!joined || !("token" in joined)) throw new Error("expected the new person's answer");
    expect(joined.$schema).toMatch(/InvitationAcceptance\.json$/);
    expect(joined.user).toMatchObject({ email, display_name: "New Teammate", is_admin: false });
    expect(joined.member).toMatchObject({ workspace_id: ws, user_id: joined.user.id, role: "editor", display_name: "New Teammate" });
    const me = expectData(await client(joined.token).GET("/auth/me"));
    expect(me.id).toBe(joined.user.id);
    // As an editor they read the team at once.
    expect(expectData(await client(joined.token).GET("/workspaces/{id}/members", { params: { path: { id: ws } } })).map((m) => m.user_id)).toContain(
      joined.user.id,
    );
    expectProblem(await accept({ token: made.token }), 422, "invalid-invitation");
    const listed = expectData(await list(admin.token, ws));
    expect(listed.find((i) => i.id === made.id)?.status).toBe("accepted");
    const events = await auditOf(made.id);
    expect(events.map((e) => e.action).sort()).toEqual(["invitation.accept", "invitation.create"]);
    const everything = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.actorUserId, joined.user.id)));
    expect(everything.map((e) => e.action).sort()).toEqual(["invitation.accept", "token.create", "user.create", "workspace.member.add"]);
    expect(JSON.stringify(everything)).not.toContain(made.token);
    expect(JSON.stringify(everything)).not.toContain(joined.token);
  });

  it("signed in as the invited person → 200 member; as someone else → 403 and the invitation stays usable", async () => {
    const { admin, stranger, ws } = await team();
    const invitee = await newUser();
    const made = expectData(await invite(admin.token, ws, invitee.email.toUpperCase(), "viewer"), 201);
    expectProblem(await accept({ token: made.token }, stranger.token), 403, "forbidden");
    const res = await accept({ token: made.token }, invitee.token);
    const member = expectData(res, 200);
    expect(member).toMatchObject({ workspace_id: ws, user_id: invitee.id, role: "viewer" });
    expect(member.$schema).toMatch(/Member\.json$/);
    const [row] = await withDb((db) => db.select().from(workspaceMembers).where(eq(workspaceMembers.userId, invitee.id)));
    expect(row).toMatchObject({ workspaceId: ws, role: "viewer" });
  });

  it("signed in with a browser session: accepted when the request comes from Herald's own origin (403 otherwise)", async () => {
    const { admin, ws } = await team();
    const invitee = await newUser();
    const session = await withDb((db) => openSession(db, invitee.id, "pk_invitation"));
    const made = expectData(await invite(admin.token, ws, invitee.email, "editor"), 201);
    const cookie = `herald_session=${session.token}`;
    expectRawProblem(await api("POST", "/invitations/accept", { headers: { cookie }, json: { token: made.token } }), 403, "forbidden");
    const res = await api("POST", "/invitations/accept", { headers: { cookie, origin: ORIGIN }, json: { token: made.token } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ workspace_id: ws, user_id: invitee.id, role: "editor" });
    const [event] = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, made.id), eq(auditEvents.action, "invitation.accept"))),
    );
    expect(event).toMatchObject({ actorUserId: invitee.id, actorKind: "session" });
  });

  it("not signed in, for an e-mail address someone already has → 403 (sign in first); a bad credential → 401", async () => {
    const { admin, ws } = await team();
    const existing = await newUser();
    const made = expectData(await invite(admin.token, ws, existing.email), 201);
    expectProblem(await accept({ token: made.token }), 403, "forbidden");
    expectProblem(await accept({ token: made.token }, "hld_not-a-real-token-at-all"), 401, "unauthorized");
    expect((await accept({ token: made.token }, existing.token)).response.status).toBe(200);
  });

  it("a revoked, expired or unknown invitation → 422 invalid-invitation, and nobody is made", async () => {
    const { admin, editor, stranger, ws } = await team();
    const revokedEmail = freshEmail();
    const revoked = expectData(await invite(admin.token, ws, revokedEmail), 201);
    expectProblem(await revoke(editor.token, ws, revoked.id), 403, "forbidden");
    expectProblem(await revoke(stranger.token, ws, revoked.id), 404, "not-found");
    expect((await revoke(admin.token, ws, revoked.id)).response.status).toBe(204);
    expectProblem(await revoke(admin.token, ws, revoked.id), 404, "not-found");
    expectProblem(await accept({ token: revoked.token }), 422, "invalid-invitation");
    expect((await auditOf(revoked.id)).map((e) => e.action)).toEqual(["invitation.create", "invitation.revoke"]);

    const expiredEmail = freshEmail();
    const expired = expectData(await invite(admin.token, ws, expiredEmail), 201);
    await withDb((db) => db.update(invitations).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(invitations.id, expired.id)));
    expectProblem(await accept({ token: expired.token }), 422, "invalid-invitation");
    expectProblem(await accept({ token: `hli_${"x".repeat(40)}` }), 422, "invalid-invitation");
    const statuses = Object.fromEntries(expectData(await list(admin.token, ws)).map((i) => [i.id, i.status]));
    expect(statuses).toMatchObject({ [revoked.id]: "revoked", [expired.id]: "expired" });
    const made = await withDb((db) => db.select().from(users).where(sql`lower(${users.email}) in (${revokedEmail}, ${expiredEmail})`));
    expect(made).toEqual([]);
  });

  it("two people accepting the same invitation at once: one gets it", async () => {
    const { admin, ws } = await team();
    const made = expectData(await invite(admin.token, ws, freshEmail()), 201);
    const answers = await Promise.all([accept({ token: made.token }), accept({ token: made.token })]);
    expect(answers.map((r) => r.response.status).sort()).toEqual([201, 422]);
  });
});
