import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outboxJobs, users } from "../../db/schema";
import { call, newUser, withDb } from "./helpers";

// What only the Workers runtime can show; the bulk of the API is tested in Node (project "node").
describe("gateway inside workerd", () => {
  it("answers /healthz: the database (Neon driver over WebSocket) and SQS both answer", async () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers"); // this file really runs inside workerd
    const res = await call("GET", "/healthz");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: "ok", checks: { database: "ok", queue: "ok" } });
  });

  it("serves a user and token created in the test through drizzle, then creates and lists a workspace", async () => {
    const user = await newUser();

    const me = await call("GET", "/auth/me", { token: user.token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.email).toBe(user.email);
    expect(me.body.$schema).toMatch(/\/api\/v1\/schemas\/UserProfile\.json$/);

    const created = await call("POST", "/workspaces", { token: user.token, json: { name: "Inside workerd" } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: "Inside workerd", role: "owner" });

    const list = await call("GET", "/workspaces", { token: user.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([created.body.id]);
  });

  it("runs interactive transactions with SELECT … FOR UPDATE, commit and rollback", async () => {
    const user = await newUser();
    await withDb(async (db) => {
      const seen = await db.transaction(async (tx) => {
        const [locked] = await tx.select().from(users).where(eq(users.id, user.id)).for("update");
        const [{ pid }] = (await tx.execute(sql`select pg_backend_pid() as pid`)).rows as { pid: number }[];
        await tx
          .update(users)
          .set({ displayName: `${locked.displayName} (locked)` })
          .where(eq(users.id, user.id));
        const [again] = await tx.select({ name: users.displayName }).from(users).where(eq(users.id, user.id));
        return { name: again.name, pid };
      });
      expect(seen.name).toBe("Workerd User (locked)");
      expect(seen.pid).toBeGreaterThan(0);

      await expect(
        db.transaction(async (tx) => {
          await tx.select().from(users).where(eq(users.id, user.id)).for("update");
          await tx.update(users).set({ displayName: "never committed" }).where(eq(users.id, user.id));
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      const [after] = await db.select({ name: users.displayName }).from(users).where(eq(users.id, user.id));
      expect(after.name).toBe("Workerd User (locked)");
    });
  });

  it("answers errors as problem+json (401 without a token, 422 for an invalid body)", async () => {
    const unauthorized = await call("GET", "/auth/me");
    expect(unauthorized.status, unauthorized.text).toBe(401);
    expect(unauthorized.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(unauthorized.body).toMatchObject({ status: 401 });

    const user = await newUser();
    const invalid = await call("POST", "/workspaces", { token: user.token, json: { name: "" } });
    expect(invalid.status, invalid.text).toBe(422);
    expect(invalid.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(invalid.body).toMatchObject({ status: 422 });
  });

  it("answers a multipart body that is not a form 400, not 500 (the runtime's own FormData parser)", async () => {
    const user = await newUser();
    for (const type of ["multipart/form-data; boundary=xyz", "multipart/form-data"]) {
      const res = await call("POST", "/media", { token: user.token, body: "this is not a form", headers: { "content-type": type } });
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, detail: expect.stringMatching(/multipart/) });
    }
  });

  it("queues an analytics refresh (202) and the post-commit fast path sends its outbox row to SQS", async () => {
    const user = await newUser();
    const workspace = await call("POST", "/workspaces", { token: user.token, json: { name: "Analytics in workerd" } });
    expect(workspace.status, workspace.text).toBe(201);

    const refresh = await call("POST", "/analytics/refresh", { token: user.token, json: { workspace_id: workspace.body.id } });
    expect(refresh.status, refresh.text).toBe(202);
    expect(refresh.body.queued).toBe(0);

    // The relay runs in waitUntil after the response: poll the row for a few seconds.
    const row = await withDb(async (db) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [job] = await db
          .select()
          .from(outboxJobs)
          .where(and(eq(outboxJobs.workspaceId, workspace.body.id), eq(outboxJobs.kind, "analytics.refresh")));
        if ((job && job.sentAt) || Date.now() > deadline) return job;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    expect(row, "outbox row written").toBeDefined();
    expect(row.lastError).toBeNull();
    expect(row.sentAt, "sent by the post-commit fast path").toBeInstanceOf(Date);
    expect(row.sendAttempts).toBe(1);
  });
});
