import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens, auditEvents } from "../db/schema";
import { client } from "./helpers/client";
import { api, expectProblem as expectRawProblem, newUser, slugOf, withDb } from "./helpers/harness";
import { expectData, expectError, expectProblem } from "./helpers/typed";

describe("identity", () => {
  it("an instance admin creates a user who can use the returned token", async () => {
    const admin = await newUser({ isAdmin: true });
    const email = `new-${Date.now()}@example.test`;
    const created = expectData(await client(admin.token).POST("/admin/users", { body: { email, display_name: "New Person" } }), 201);
    expect(created.$schema).toMatch(/\/api\/v1\/schemas\/CreatedUser\.json$/);
    expect(created.user).toMatchObject({ email, display_name: "New Person", is_admin: false });
    const me = await client(created.token).GET("/auth/me");
    expect(me.response.status).toBe(200);
    expect(me.data?.id).toBe(created.user.id);
  });

  it("refuses a duplicate e-mail (any case) with 409 conflict", async () => {
    const admin = await newUser({ isAdmin: true });
    const asAdmin = client(admin.token);
    const email = `dup-${Date.now()}@example.test`;
    expect((await asAdmin.POST("/admin/users", { body: { email } })).response.status).toBe(201);
    const again = await asAdmin.POST("/admin/users", { body: { email: email.toUpperCase() } });
    expect(slugOf(expectError(again, 409))).toBe("conflict");
  });

  it("a non-admin may not create users (403)", async () => {
    const user = await newUser();
    const res = await client(user.token).POST("/admin/users", { body: { email: "x@example.test" } });
    expect(slugOf(expectError(res, 403))).toBe("forbidden");
  });

  it("issues tokens stored only as hashes, and revokes them", async () => {
    const user = await newUser();
    const asUser = client(user.token);
    const issued = expectData(await asUser.POST("/auth/tokens", { body: { name: "ci" } }), 201);
    expect(issued).toMatchObject({ name: "ci", id: expect.stringMatching(/^tok_/) });
    const stored = await withDb((db) => db.select().from(apiTokens).where(eq(apiTokens.id, issued.id)));
    expect(stored[0].tokenHash).not.toContain(issued.token);
    expect(JSON.stringify(stored[0])).not.toContain(issued.token);

    expect((await client(issued.token).GET("/auth/me")).response.status).toBe(200);
    const revoke = (id: string) => asUser.DELETE("/auth/tokens/{id}", { params: { path: { id } } });
    const revoked = await revoke(issued.id);
    expect(revoked.response.status).toBe(204);
    const after = await client(issued.token).GET("/auth/me");
    expect(after.response.status).toBe(401);
    expect(after.response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    // Revoking twice, or someone else's token, is 404.
    expect((await revoke(issued.id)).response.status).toBe(404);
    const other = await newUser();
    const othersToken = expectData(await client(other.token).POST("/auth/tokens", { body: { name: "mine" } }), 201);
    expect((await revoke(othersToken.id)).response.status).toBe(404);
  });

  it("records token changes in the audit trail without secrets", async () => {
    const user = await newUser();
    const issued = expectData(await client(user.token).POST("/auth/tokens", { body: { name: "audited" } }), 201);
    const events = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, issued.id)));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorUserId: user.id, action: "token.create", targetType: "token" });
    expect(JSON.stringify(events)).not.toContain(issued.token);
  });

  it("lists the caller's live tokens, never the secret nor someone else's, with when each was last used", async () => {
    const user = await newUser();
    const asUser = client(user.token);
    const other = await newUser();
    const made = expectData(await asUser.POST("/auth/tokens", { body: { name: "deploy", expires_in_days: 30 } }), 201);
    const listed = expectData(await asUser.GET("/auth/tokens"));
    expect(listed.map((t) => t.name)).toEqual(["test", "deploy"]);
    const [first, second] = listed;
    expect(first.$schema).toMatch(/\/api\/v1\/schemas\/ApiToken\.json$/);
    expect(Object.keys(second).sort()).toEqual(["$schema", "created_at", "expires_at", "id", "last_used_at", "name"]);
    expect(second).toMatchObject({ id: made.id, expires_at: made.expires_at, last_used_at: null });
    // The token that made this request was used just now.
    expect(Date.now() - Date.parse(first.last_used_at!)).toBeLessThan(60_000);
    expect(JSON.stringify(listed)).not.toContain(made.token);
    const theirs = expectData(await client(other.token).GET("/auth/tokens"));
    expect(theirs.map((t) => t.id)).not.toContain(made.id);
    // Revoked ones leave the list.
    expect((await asUser.DELETE("/auth/tokens/{id}", { params: { path: { id: made.id } } })).response.status).toBe(204);
    expect(expectData(await asUser.GET("/auth/tokens")).map((t) => t.id)).not.toContain(made.id);
  });

  it("a token made to expire does so after its days (1–365); other lengths are refused", async () => {
    const user = await newUser();
    const asUser = client(user.token);
    const made = expectData(await asUser.POST("/auth/tokens", { body: { name: "short", expires_in_days: 1 } }), 201);
    const days = (Date.parse(made.expires_at!) - Date.parse(made.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(1, 3);
    expect(expectData(await asUser.POST("/auth/tokens", { body: { name: "forever" } }), 201).expires_at).toBeNull();
    expect((await client(made.token).GET("/auth/me")).response.status).toBe(200);
    await withDb((db) => db.update(apiTokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(apiTokens.id, made.id)));
    expectProblem(await client(made.token).GET("/auth/me"), 401, "unauthorized");
    expect(expectData(await asUser.GET("/auth/tokens")).map((t) => t.id)).not.toContain(made.id);
    for (const days of [0, 366, 1.5]) {
      const res = await api("POST", "/auth/tokens", { token: user.token, json: { name: "bad", expires_in_days: days } });
      expectRawProblem(res, 422, "validation-error");
      expect(res.body.errors[0].location).toBe("body.expires_in_days");
    }
  });

  it("at most 50 live tokens a person (422 beyond); revoking one makes room", async () => {
    const user = await newUser();
    const asUser = client(user.token);
    // The harness gave one; 49 more reach the limit.
    const made = await Promise.all(Array.from({ length: 49 }, (_, i) => asUser.POST("/auth/tokens", { body: { name: `t${i}` } })));
    expect(made.map((r) => r.response.status)).toEqual(Array(49).fill(201));
    const over = await asUser.POST("/auth/tokens", { body: { name: "one too many" } });
    expectProblem(over, 422, "validation-error");
    expect(expectData(await asUser.GET("/auth/tokens"))).toHaveLength(50);
    const id = made[0].data!.id;
    expect((await asUser.DELETE("/auth/tokens/{id}", { params: { path: { id } } })).response.status).toBe(204);
    expect((await asUser.POST("/auth/tokens", { body: { name: "room again" } })).response.status).toBe(201);
    const events = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.actorUserId, user.id)));
    expect(events.filter((e) => e.action === "token.create")).toHaveLength(50);
    expect(events.filter((e) => e.action === "token.revoke").map((e) => e.targetId)).toEqual([id]);
  });
});
