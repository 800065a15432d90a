import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens, auditEvents } from "../db/schema";
import { api, newUser, slugOf, withDb } from "./helpers/harness";

describe("identity", () => {
  it("an instance admin creates a user who can use the returned token", async () => {
    const admin = await newUser({ isAdmin: true });
    const email = `new-${Date.now()}@example.test`;
    const created = await api("POST", "/admin/users", { token: admin.token, json: { email, display_name: "New Person" } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.$schema).toMatch(/\/api\/v1\/schemas\/CreatedUser\.json$/);
    expect(created.body.user).toMatchObject({ email, display_name: "New Person", is_admin: false });
    const me = await api("GET", "/auth/me", { token: created.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(created.body.user.id);
  });

  it("refuses a duplicate e-mail (any case) with 409 conflict", async () => {
    const admin = await newUser({ isAdmin: true });
    const email = `dup-${Date.now()}@example.test`;
    expect((await api("POST", "/admin/users", { token: admin.token, json: { email } })).status).toBe(201);
    const again = await api("POST", "/admin/users", { token: admin.token, json: { email: email.toUpperCase() } });
    expect(again.status).toBe(409);
    expect(slugOf(again.body)).toBe("conflict");
  });

  it("a non-admin may not create users (403)", async () => {
    const user = await newUser();
    const res = await api("POST", "/admin/users", { token: user.token, json: { email: "x@example.test" } });
    expect(res.status).toBe(403);
    expect(slugOf(res.body)).toBe("forbidden");
  });

  it("issues tokens stored only as hashes, and revokes them", async () => {
    const user = await newUser();
    const issued = await api("POST", "/auth/tokens", { token: user.token, json: { name: "ci" } });
    expect(issued.status, issued.text).toBe(201);
    expect(issued.body).toMatchObject({ name: "ci", id: expect.stringMatching(/^tok_/) });
    const stored = await withDb((db) => db.select().from(apiTokens).where(eq(apiTokens.id, issued.body.id)));
    expect(stored[0].tokenHash).not.toContain(issued.body.token);
    expect(JSON.stringify(stored[0])).not.toContain(issued.body.token);

    expect((await api("GET", "/auth/me", { token: issued.body.token })).status).toBe(200);
    const revoked = await api("DELETE", `/auth/tokens/${issued.body.id}`, { token: user.token });
    expect(revoked.status).toBe(204);
    const after = await api("GET", "/auth/me", { token: issued.body.token });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toMatch(/^Bearer/);
    // Revoking twice, or someone else's token, is 404.
    expect((await api("DELETE", `/auth/tokens/${issued.body.id}`, { token: user.token })).status).toBe(404);
    const other = await newUser();
    const othersToken = await api("POST", "/auth/tokens", { token: other.token, json: { name: "mine" } });
    expect((await api("DELETE", `/auth/tokens/${othersToken.body.id}`, { token: user.token })).status).toBe(404);
  });

  it("records token changes in the audit trail without secrets", async () => {
    const user = await newUser();
    const issued = await api("POST", "/auth/tokens", { token: user.token, json: { name: "audited" } });
    const events = await withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, issued.body.id)));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorUserId: user.id, action: "token.create", targetType: "token" });
    expect(JSON.stringify(events)).not.toContain(issued.body.token);
  });
});
