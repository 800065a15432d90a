import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens } from "../db/schema";
import { hashToken } from "../lib/auth/tokens";
import { randomText } from "../lib/ids";
import { ensureBootstrapAdmin } from "../local/services/bootstrap";
import { client } from "./helpers/client";
import { env, withDb } from "./helpers/harness";
import { expectData } from "./helpers/typed";

/** What `npm start` does at every start with BOOTSTRAP_ADMIN_EMAIL / BOOTSTRAP_ADMIN_TOKEN (or the generated token). */
describe("the bootstrap administrator (local/services/bootstrap.ts)", () => {
  it("creates the administrator and its token once; a revoked token stays revoked across restarts", async () => {
    const email = `boot-${randomText(8)}@example.test`;
    const token = `hld_${randomText(40)}`;
    expect(await ensureBootstrapAdmin(env, email, token)).toEqual({ createdUser: true, createdToken: true, revoked: false });
    const me = expectData(await client(token).GET("/auth/me"));
    expect(me.is_admin).toBe(true);
    // A second start changes nothing.
    expect(await ensureBootstrapAdmin(env, email, token)).toEqual({ createdUser: false, createdToken: false, revoked: false });

    // The token leaked: its owner revokes it, the way every token is revoked.
    const [row] = await withDb(async (db) =>
      db
        .select()
        .from(apiTokens)
        .where(eq(apiTokens.tokenHash, await hashToken(token))),
    );
    expect((await client(token).DELETE("/auth/tokens/{id}", { params: { path: { id: row.id } } })).response.status).toBe(204);
    expect((await client(token).GET("/auth/me")).response.status).toBe(401);

    // The next start (same configuration) says so and does not bring it back.
    expect(await ensureBootstrapAdmin(env, email, token)).toEqual({ createdUser: false, createdToken: false, revoked: true });
    expect((await client(token).GET("/auth/me")).response.status).toBe(401);
    const [after] = await withDb((db) => db.select().from(apiTokens).where(eq(apiTokens.id, row.id)));
    expect(after.revokedAt).not.toBeNull();

    // A new token (a new BOOTSTRAP_ADMIN_TOKEN, or a new generated file) works.
    const fresh = `hld_${randomText(40)}`;
    expect(await ensureBootstrapAdmin(env, email, fresh)).toEqual({ createdUser: false, createdToken: true, revoked: false });
    expect((await client(fresh).GET("/auth/me")).response.status).toBe(200);
  });
});
