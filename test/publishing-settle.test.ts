import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outboxJobs, publications, renditions } from "../db/schema";
import { openDb } from "../lib/db/client";
import type { Database } from "../lib/db/client";
import { settleAfterJob } from "../lib/delivery/job";
import { commitFinish } from "../lib/jobs/consumer";

/** A job's settling, committed as the consumer would (without a receipt to write). */
const settle = async (db: Database, publicationId: string) => commitFinish(db, await settleAfterJob(db, publicationId));
const settleWith = settleAfterJob;
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { expectData } from "./helpers/typed";

// lib/delivery/job.ts settleAfterJob: the usual end of a publish job (every rendition done) is settled from what was
// read, without an interactive transaction; anything that must queue a job takes the locked path.

async function publishing(destinations: number) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const accounts = [];
  for (let i = 0; i < destinations; i++) accounts.push(await newAccount(ws, owner.id, "webhook", { url: `http://127.0.0.1:9/hook-${i}` }));
  const c = client(owner.token);
  const created = expectData(
    await c.POST("/publications", {
      body: { workspace_id: ws, title: "Settle", source_text: "Settle me", destinations: accounts.map((a) => ({ social_account_id: a })) },
    }),
    201,
  );
  expectData(await c.POST("/publications/{id}/publish-now", { params: { path: { id: created.id } }, body: { expected_revision: 1 } }), 202);
  const ids = await withDb(async (db) =>
    (await db.select({ id: renditions.id }).from(renditions).where(eq(renditions.publicationId, created.id)).orderBy(renditions.position)).map((r) => r.id),
  );
  return { id: created.id, renditions: ids };
}

const setRendition = (id: string, fields: Partial<typeof renditions.$inferInsert>) =>
  withDb((db) => db.update(renditions).set(fields).where(eq(renditions.id, id)));
const statusOf = (id: string) =>
  withDb(async (db) => (await db.select({ status: publications.status }).from(publications).where(eq(publications.id, id)))[0].status);

/** A database whose statements reach the SQL endpoint but whose WebSocket (interactive transactions) goes nowhere. */
function withoutWebSocket() {
  return openDb({ DATABASE_URL: env.DATABASE_URL, NEON_FETCH_ENDPOINT: env.NEON_FETCH_ENDPOINT, NEON_WS_PROXY: "127.0.0.1:9/v2" });
}

describe("settling a publication", () => {
  it("every rendition done: published, or partially published, with no interactive transaction", async () => {
    const all = await publishing(2);
    const some = await publishing(2);
    for (const id of all.renditions) await setRendition(id, { status: "published" });
    await setRendition(some.renditions[0], { status: "published" });
    await setRendition(some.renditions[1], { status: "failed", terminalReason: "not_retryable_validation" });
    const handle = withoutWebSocket();
    try {
      await settle(handle.db, all.id);
      await settle(handle.db, some.id);
    } finally {
      await handle.close();
    }
    expect(await statusOf(all.id)).toBe("published");
    expect(await statusOf(some.id)).toBe("partially_published");
  });

  it("a rendition given up after every retry is also recorded for the dead-letter queue (the locked path)", async () => {
    const pub = await publishing(1);
    await setRendition(pub.renditions[0], { status: "failed", terminalReason: "gave_up_after_8_attempts", errorCode: "http_503" });
    await withDb((db) => settle(db, pub.id));
    expect(await statusOf(pub.id)).toBe("failed");
    const dead = await withDb((db) =>
      db
        .select()
        .from(outboxJobs)
        .where(and(eq(outboxJobs.deadLetter, true), sql`${outboxJobs.payload}->>'publication_id' = ${pub.id}`)),
    );
    expect(dead).toHaveLength(1);
    expect(dead[0].payload).toMatchObject({ rendition_id: pub.renditions[0], terminal_reason: "gave_up_after_8_attempts" });
  });

  it("a rendition still waiting keeps the publication publishing, with one follow-up job", async () => {
    const pub = await publishing(2);
    await setRendition(pub.renditions[0], { status: "published" });
    await setRendition(pub.renditions[1], { status: "retrying", nextAttemptAt: new Date(Date.now() + 60_000) });
    // The publish-now job is still unsent in the outbox here; mark it sent so settle must queue a follow-up.
    await withDb((db) => db.update(outboxJobs).set({ sentAt: sql`now()` }).where(sql`${outboxJobs.payload}->>'publication_id' = ${pub.id}`));
    await withDb((db) => settle(db, pub.id));
    await withDb((db) => settle(db, pub.id));
    expect(await statusOf(pub.id)).toBe("publishing");
    const followUps = await withDb((db) =>
      db
        .select()
        .from(outboxJobs)
        .where(and(eq(outboxJobs.deadLetter, false), sql`${outboxJobs.sentAt} is null`, sql`${outboxJobs.payload}->>'publication_id' = ${pub.id}`)),
    );
    expect(followUps).toHaveLength(1);
  });

  it("when its publication changed after the read, the update sent with the job's receipt does not apply: the locked path settles it", async () => {
    const pub = await publishing(2);
    await setRendition(pub.renditions[0], { status: "published" });
    await setRendition(pub.renditions[1], { status: "published" });
    await withDb(async (db) => {
      const finish = await settleWith(db, pub.id);
      expect(finish).toBeDefined();
      // Between the read and the update, the second rendition fails after all (a late reconciliation, say).
      await setRendition(pub.renditions[1], { status: "failed", terminalReason: "not_retryable_validation" });
      const receiptHolds = async () => (await db.execute(sql`select (${finish!.receiptIf}) as done`)).rows[0].done;
      await db.transaction(async (tx) => void (await Promise.all(finish!.statements(tx))));
      expect(await statusOf(pub.id)).toBe("publishing");
      expect(await receiptHolds()).toBe(false); // a job would not be marked done here
      await finish!.otherwise();
      expect(await statusOf(pub.id)).toBe("partially_published");
      expect(await receiptHolds()).toBe(true);
    });
  });

  it("two jobs settling at once settle it once", async () => {
    const pub = await publishing(3);
    for (const id of pub.renditions) await setRendition(id, { status: "published" });
    const before = await withDb(
      async (db) => (await db.select({ updatedAt: publications.updatedAt }).from(publications).where(eq(publications.id, pub.id)))[0].updatedAt,
    );
    await withDb((db) => Promise.all([settle(db, pub.id), settle(db, pub.id), settle(db, pub.id)]));
    expect(await statusOf(pub.id)).toBe("published");
    const after = await withDb(
      async (db) => (await db.select({ updatedAt: publications.updatedAt }).from(publications).where(eq(publications.id, pub.id)))[0].updatedAt,
    );
    expect(after.getTime()).toBeGreaterThanOrEqual(before.getTime());
  });
});
