import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens, browserSessions, users } from "../db/schema";
import { callerColumns } from "../lib/auth/caller";
import { findUserBySession, openSession } from "../lib/auth/sessions";
import { findUserByToken, hashToken } from "../lib/auth/tokens";
import { sha256Hex } from "../lib/crypto";
import { openDb } from "../lib/db/client";
import { api, env, expectProblem, newUser, newWorkspace } from "./helpers/harness";

/**
 * Authentication's lookups run statements drizzle compiled once (lib/db/compiled.ts). They must answer
 * exactly what the same select built by drizzle for each request answers: every column of the user, mapped
 * to the same types, and the role in the named workspace.
 */
describe("the caller lookups compiled once", () => {
  it("answer what drizzle's own query answers, with and without a workspace, for tokens and sessions", async () => {
    const [owner, editor] = await Promise.all([newUser({ isAdmin: true }), newUser()]);
    const ws = await newWorkspace(owner, [{ id: editor.id, role: "editor" }]);
    const { db, pool, close } = openDb(env);
    try {
      await db.update(users).set({ username: "ünïcode-name", avatarUrl: "https://example.test/a.png" }).where(eq(users.id, owner.id));
      for (const person of [owner, editor]) {
        const hash = await hashToken(person.token);
        for (const workspaceId of [ws, undefined, "wsp_missing"]) {
          const [expected] = await db
            .select({ ...callerColumns(workspaceId), tokenId: apiTokens.id })
            .from(apiTokens)
            .innerJoin(users, eq(users.id, apiTokens.userId))
            .where(eq(apiTokens.tokenHash, hash));
          const found = await findUserByToken(pool, hash, workspaceId);
          expect(found).toEqual(expected);
          expect(found.createdAt).toBeInstanceOf(Date);
        }
      }
      expect((await findUserByToken(pool, await hashToken(owner.token), ws))?.role).toBe("owner");
      expect((await findUserByToken(pool, await hashToken(editor.token), ws))?.role).toBe("editor");
      expect(await findUserByToken(pool, await hashToken("hld_unknown_unknown_unknown"), ws)).toBeUndefined();

      const session = await openSession(db, editor.id, "pk_lookup");
      const [row] = await db.select().from(users).where(eq(users.id, editor.id));
      const viaSession = await findUserBySession(pool, await sha256Hex(session.token), ws);
      expect(viaSession).toEqual({ ...row, role: "editor", sessionId: session.id });
      await db.update(browserSessions).set({ revokedAt: sql`now()` }).where(eq(browserSessions.id, session.id));
      expect(await findUserBySession(pool, await sha256Hex(session.token), ws)).toBeUndefined();
    } finally {
      await close();
    }
  });

  it("refuses a workspace id Postgres cannot hold as text with 422, as it refuses it anywhere else", async () => {
    const { token } = await newUser();
    for (const path of ["/auth/me?workspace_id=a%00b", "/media?workspace_id=a%00b", "/admin/audit-evidence?workspace_id=%00"]) {
      expectProblem(await api("GET", path, { token }), 422, "validation-error");
    }
  });
});
