import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiTokens, browserSessions, media } from "../db/schema";
import { callerMayRead, type Credential } from "../lib/auth/read-guard";
import { openSession } from "../lib/auth/sessions";
import { hashToken } from "../lib/auth/tokens";
import { sha256Hex } from "../lib/crypto";
import { rolesAtLeast } from "../lib/http/workspace-guard";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { clientWithEnv, expectData, expectError, expectProblem, type Problem } from "./helpers/typed";

/**
 * GET /publications and GET /media send their first statement beside authentication's (lib/http/scoped-read.ts).
 * Nothing may change for the caller: authentication still decides first, then membership, then the request's
 * own errors; nothing of the list leaves with a refusal; and the statement itself reads nothing for anyone else.
 */
async function team() {
  const [owner, viewer, stranger] = await Promise.all([newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [{ id: viewer.id, role: "viewer" }]);
  for (const text of ["one", "two", "three"]) {
    expectData(await client(owner.token).POST("/publications", { body: { workspace_id: ws, source_text: text, destinations: [] } }), 201);
  }
  return { owner, viewer, stranger, ws };
}

const unknownToken = "hld_" + "x".repeat(40);
const listPublications = (token: string | undefined, query: { workspace_id: string; limit?: number; cursor?: string }) =>
  client(token).GET("/publications", { params: { query } });
const listMedia = (token: string | undefined, query: { workspace_id: string; limit?: number }) => client(token).GET("/media", { params: { query } });

describe("lists read beside authentication", () => {
  it("answers 401 before anything else for a missing, unknown or revoked credential, carrying nothing of the list", async () => {
    const { owner, ws } = await team();
    const page = await client(owner.token).GET("/publications", { params: { query: { workspace_id: ws, limit: 1 } } });
    expect(expectData(page)).toHaveLength(1);
    expect(page.response.headers.get("link")).toMatch(/rel="next"/);

    const revoked = await newUser();
    await withDb((db) => db.update(apiTokens).set({ revokedAt: sql`now()` }).where(eq(apiTokens.userId, revoked.id)));
    const lists: [string, (token: string | undefined) => Promise<{ data?: unknown; error?: Problem; response: Response }>][] = [
      ["publications, limit=1", (token) => listPublications(token, { workspace_id: ws, limit: 1 })],
      ["publications, cursor=forged", (token) => listPublications(token, { workspace_id: ws, cursor: "forged" })],
      ["media", (token) => listMedia(token, { workspace_id: ws })],
      ["media, limit=0", (token) => listMedia(token, { workspace_id: ws, limit: 0 })],
    ];
    for (const [name, list] of lists) {
      for (const token of [unknownToken, revoked.token, undefined]) {
        const res = await list(token);
        const problem = expectProblem(res, 401, "unauthorized");
        expect(res.response.headers.get("link"), name).toBeNull();
        expect(res.response.headers.get("www-authenticate")).toMatch(/^Bearer/);
        expect(JSON.stringify(problem)).not.toMatch(/one|two|three/);
      }
    }
  });

  it("keeps membership before the request's own errors: 404 for a stranger, 422 only for a member", async () => {
    const { owner, viewer, stranger, ws } = await team();
    expectProblem(await listPublications(stranger.token, { workspace_id: ws }), 404, "not-found");
    expectProblem(await listPublications(stranger.token, { workspace_id: ws, cursor: "forged" }), 404, "not-found");
    expectProblem(await listMedia(stranger.token, { workspace_id: ws }), 404, "not-found");
    expectProblem(await listPublications(owner.token, { workspace_id: ws, cursor: "forged" }), 422, "validation-error");
    const asViewer = expectData(await listPublications(viewer.token, { workspace_id: ws }));
    expect(asViewer.map((p) => p.source_text).sort()).toEqual(["one", "three", "two"]);
    const mediaList = expectData(await listMedia(viewer.token, { workspace_id: ws }));
    expect(mediaList.total).toBe(0);
  });

  it("takes a browser session too, and refuses one that has ended", async () => {
    const { viewer, ws } = await team();
    const session = await withDb((db) => openSession(db, viewer.id, "pk_guarded_read"));
    const headers = { cookie: `herald_session=${session.token}` };
    const ok = await client().GET("/publications", { params: { query: { workspace_id: ws } }, headers });
    expect(ok.response.status).toBe(200);
    expect(ok.data).toHaveLength(3);
    await withDb((db) => db.update(browserSessions).set({ lastSeenAt: sql`now() - interval '13 hours'` }).where(eq(browserSessions.id, session.id)));
    const ended = await client().GET("/media", { params: { query: { workspace_id: ws } }, headers });
    expect(JSON.stringify(expectError(ended, 401))).toMatch(/session has ended/);
  });

  it("counts each list once against the per-token rate limit", async () => {
    const { viewer, ws } = await team(); // the owner's token already made requests this minute
    const limited = { ...env, RATE_LIMIT_PER_MINUTE: "3" };
    if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    const c = clientWithEnv(viewer.token, limited);
    expect((await c.GET("/publications", { params: { query: { workspace_id: ws } } })).response.status).toBe(200);
    expect((await c.GET("/media", { params: { query: { workspace_id: ws } } })).response.status).toBe(200);
    expect((await c.GET("/auth/me")).response.status).toBe(200);
    const refused = await c.GET("/publications", { params: { query: { workspace_id: ws, limit: 1 } } });
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get("link")).toBeNull();
    expect(refused.response.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("guards the statement: true only for a live credential with the role, and otherwise Postgres reads nothing", async () => {
    const { owner, viewer, stranger, ws } = await team();
    const revoked = await newUser();
    await withDb((db) => db.update(apiTokens).set({ revokedAt: sql`now()` }).where(eq(apiTokens.userId, revoked.id)));
    const token = async (t: string): Promise<Credential> => ({ kind: "token", hash: await hashToken(t) });
    const session = await withDb((db) => openSession(db, viewer.id, "pk_guard"));
    const viewerToken = await token(viewer.token);
    const cases: [string, Credential, "viewer" | "editor", boolean][] = [
      ["owner", await token(owner.token), "viewer", true],
      ["owner, editor needed", await token(owner.token), "editor", true],
      ["viewer", viewerToken, "viewer", true],
      ["viewer, editor needed", viewerToken, "editor", false],
      ["stranger", await token(stranger.token), "viewer", false],
      ["revoked", await token(revoked.token), "viewer", false],
      ["unknown", await token(unknownToken), "viewer", false],
      ["viewer's session", { kind: "session", hash: await sha256Hex(session.token) }, "viewer", true],
      ["a token's hash presented as a session", { kind: "session", hash: viewerToken.hash }, "viewer", false],
    ];
    await withDb(async (db) => {
      for (const [name, credential, min, expected] of cases) {
        const { rows } = await db.execute<{ ok: boolean }>(sql`select ${callerMayRead(credential, ws, rolesAtLeast(min))} as ok`);
        expect(rows[0].ok, name).toBe(expected);
      }
      // For a refused credential the list's scan is never executed: the guard is a one-time filter evaluated first.
      const plan = await db.execute<{ "QUERY PLAN": string }>(
        sql`explain (analyze, costs off, timing off) select * from ${media} where ${callerMayRead(await token(unknownToken), ws, rolesAtLeast("viewer"))} and ${media.workspaceId} = ${ws}`,
      );
      const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(text).toMatch(/One-Time Filter/);
      expect(text).toMatch(/Scan.*\(never executed\)/);
    });
  });
});
