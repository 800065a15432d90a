import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens, auditEvents } from "../db/schema";
import { newUser, slugOf, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { expectData, expectError } from "./helpers/typed";

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
});
