import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { eq, inArray, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { outboxJobs } from "../db/schema";
import type { Env } from "../lib/env";
import { enqueueJob, outboxRow, relayOutbox, sendLeased } from "../lib/jobs/outbox";
import { sqsClient } from "../lib/jobs/sqs";
import { ensureQueues } from "../local/services/sqs";
import { env, withDb } from "./helpers/harness";

// lib/jobs/outbox.ts: just-committed rows are relayed by id without an interactive transaction, under a
// lease. Each test uses queues of its own, so the counts are its own.
const queuesOfMyOwn = async (label: string) => ({ ...env, ...(await ensureQueues(env, `${label}-${Date.now()}-`)) }) as Env;

async function messagesIn(e: Env): Promise<number> {
  const sqs = sqsClient(e);
  try {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: e.SQS_QUEUE_URL_ANALYTICS,
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      }),
    );
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  } finally {
    sqs.destroy();
  }
}

const rows = (ids: string[]) => withDb((db) => db.select().from(outboxJobs).where(inArray(outboxJobs.id, ids)).orderBy(outboxJobs.createdAt));

describe("outbox relay by id", () => {
  it("sends a row once however many relays race for it, and records it sent", async () => {
    const e = await queuesOfMyOwn("race");
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, {}));
    const results = await withDb((db) =>
      Promise.all([relayOutbox(db, e, { ids: [id] }), relayOutbox(db, e, { ids: [id] }), relayOutbox(db, e, { kinds: ["analytics.refresh"] })]),
    );
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(1);
    expect(await messagesIn(e)).toBe(1);
    const [row] = await rows([id]);
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(row.state).toBe("queued");
    expect(row.sendAttempts).toBe(1);
  });

  it("keeps what a consumer already recorded when it ran before the relay recorded the send", async () => {
    const e = await queuesOfMyOwn("early");
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, {}));
    await withDb((db) => db.update(outboxJobs).set({ state: "done" }).where(eq(outboxJobs.id, id)));
    expect((await withDb((db) => relayOutbox(db, e, { ids: [id] }))).sent).toBe(1);
    const [row] = await rows([id]);
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(row.state).toBe("done");
  });

  it("a row under another relay's lease is left to it; once the lease has lapsed (that relay died) it is sent", async () => {
    const e = await queuesOfMyOwn("lease");
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, {}));
    await withDb((db) =>
      db
        .update(outboxJobs)
        .set({ sendLeaseUntil: new Date(Date.now() + 60_000) })
        .where(eq(outboxJobs.id, id)),
    );
    expect((await withDb((db) => relayOutbox(db, e, { ids: [id] }))).sent).toBe(0);
    expect((await withDb((db) => relayOutbox(db, e, { kinds: ["analytics.refresh"] }))).sent).toBe(0);
    await withDb((db) =>
      db
        .update(outboxJobs)
        .set({ sendLeaseUntil: new Date(Date.now() - 1000) })
        .where(eq(outboxJobs.id, id)),
    );
    expect((await withDb((db) => relayOutbox(db, e, { ids: [id] }))).sent).toBe(1);
    expect(await messagesIn(e)).toBe(1);
    expect((await rows([id]))[0].sendLeaseUntil).toBeNull();
  });

  it("while SQS is down: the failed row backs off, the rows not tried are given back at once, not a lease later", async () => {
    const down = { ...env, SQS_ENDPOINT: "http://127.0.0.1:9" } as Env; // nothing listens on the discard port
    const ids = await withDb(async (db) => [await enqueueJob(db, "analytics.refresh", null, {}), await enqueueJob(db, "analytics.refresh", null, {})]);
    const result = await withDb((db) => relayOutbox(db, down, { ids }));
    expect(result).toMatchObject({ sent: 0, failed: 1 });
    const [first, second] = await rows(ids);
    expect(first.sentAt).toBeNull();
    expect(first.sendAttempts).toBe(1);
    expect(first.lastError).toBeTruthy();
    expect(second.sentAt).toBeNull();
    expect(second.sendAttempts).toBe(0);
    expect(second.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect([first.sendLeaseUntil, second.sendLeaseUntil]).toEqual([null, null]);
    // Both go out once SQS answers.
    const e = await queuesOfMyOwn("back");
    expect((await withDb((db) => relayOutbox(db, e, { ids }))).sent).toBe(2);
    expect(await messagesIn(e)).toBe(2);
  });

  it("a row written under a send lease is its writer's to send: no relay takes it until the lease lapses, and sendLeased sends it", async () => {
    const e = await queuesOfMyOwn("leased");
    const job = outboxRow("analytics.refresh", null, {}, { leased: true });
    await withDb((db) => db.insert(outboxJobs).values(job));
    expect((await rows([job.id]))[0].sendLeaseUntil!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect((await withDb((db) => relayOutbox(db, e, { ids: [job.id] }))).sent).toBe(0);
    expect((await withDb((db) => relayOutbox(db, e, { kinds: ["analytics.refresh"] }))).sent).toBe(0);
    expect(await withDb((db) => sendLeased(db, e, [job]))).toMatchObject({ sent: 1, kinds: ["analytics.refresh"] });
    expect(await messagesIn(e)).toBe(1);
    const [row] = await rows([job.id]);
    expect(row).toMatchObject({ sendLeaseUntil: null, sendAttempts: 1, state: "queued" });
    expect(row.sentAt).toBeInstanceOf(Date);
  });
});

describe("the database's clock decides when an outbox row is due", () => {
  // The Worker's clock 5 minutes ahead of the database's; only Date is faked (timers still run).
  const workerClockAhead = () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(Date.now() + 5 * 60_000));
  };
  afterEach(() => void vi.useRealTimers());
  /** Seconds from the database's now() to the row's next attempt. */
  const dueIn = (id: string) =>
    withDb(async (db) =>
      Number(
        (
          await db
            .select({ s: sql<number>`extract(epoch from ${outboxJobs.nextAttemptAt} - now())::float8` })
            .from(outboxJobs)
            .where(eq(outboxJobs.id, id))
        )[0].s,
      ),
    );

  it("delaySeconds: not before now() + the delay, whatever the Worker's clock says", async () => {
    workerClockAhead();
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, {}, { delaySeconds: 30 }));
    expect(await dueIn(id)).toBeGreaterThan(28);
    expect(await dueIn(id)).toBeLessThanOrEqual(30);
    // And not before: a relay of due rows leaves it.
    expect((await withDb((db) => relayOutbox(db, env, { ids: [id], due: true }))).sent).toBe(0);
    await withDb((db) => db.delete(outboxJobs).where(eq(outboxJobs.id, id)));
  });

  it("a failed send's backoff and a send lease are counted from now()", async () => {
    workerClockAhead();
    const down = { ...env, SQS_ENDPOINT: "http://127.0.0.1:9" } as Env;
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, {}));
    expect((await withDb((db) => relayOutbox(db, down, { ids: [id] }))).failed).toBe(1);
    // The first backoff is 0.5–1 s after the database's now, not 5 minutes on.
    expect(await dueIn(id)).toBeLessThanOrEqual(1);
    const leased = outboxRow("analytics.refresh", null, {}, { leased: true });
    await withDb((db) => db.insert(outboxJobs).values(leased));
    const [{ s }] = await withDb((db) =>
      db
        .select({ s: sql<number>`extract(epoch from ${outboxJobs.sendLeaseUntil} - now())::float8` })
        .from(outboxJobs)
        .where(eq(outboxJobs.id, leased.id)),
    );
    expect(Number(s)).toBeGreaterThan(55);
    expect(Number(s)).toBeLessThanOrEqual(60);
    await withDb((db) => db.delete(outboxJobs).where(inArray(outboxJobs.id, [id, leased.id])));
  });
});
