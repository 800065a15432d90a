import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
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
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: e.SQS_QUEUE_URL_ANALYTICS, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"] }));
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  } finally {
    sqs.destroy();
  }
}

const rows = (ids: string[]) => withDb((db) => db.select().from(outboxJobs).where(inArray(outboxJobs.id, ids)).orderBy(outboxJobs.createdAt));

describe("outbox relay by id", () => {
  it("sends a row once however many relays race for it, and records it sent", async () => {
    const e = await queuesOfMyOwn("race");
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, { probe: "race" }));
    const results = await withDb((db) => Promise.all([relayOutbox(db, e, { ids: [id] }), relayOutbox(db, e, { ids: [id] }), relayOutbox(db, e, { kinds: ["analytics.refresh"] })]));
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(1);
    expect(await messagesIn(e)).toBe(1);
    const [row] = await rows([id]);
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(row.state).toBe("queued");
    expect(row.sendAttempts).toBe(1);
  });

  it("keeps what a consumer already recorded when it ran before the relay recorded the send", async () => {
    const e = await queuesOfMyOwn("early");
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, { probe: "early" }));
    await withDb((db) => db.update(outboxJobs).set({ state: "done" }).where(eq(outboxJobs.id, id)));
    expect((await withDb((db) => relayOutbox(db, e, { ids: [id] }))).sent).toBe(1);
    const [row] = await rows([id]);
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(row.state).toBe("done");
  });

  it("a row under another relay's lease is left to it; once the lease has lapsed (that relay died) it is sent", async () => {
    const e = await queuesOfMyOwn("lease");
    const id = await withDb((db) => enqueueJob(db, "analytics.refresh", null, { probe: "lease" }));
    await withDb((db) => db.update(outboxJobs).set({ sendLeaseUntil: new Date(Date.now() + 60_000) }).where(eq(outboxJobs.id, id)));
    expect((await withDb((db) => relayOutbox(db, e, { ids: [id] }))).sent).toBe(0);
    expect((await withDb((db) => relayOutbox(db, e, { kinds: ["analytics.refresh"] }))).sent).toBe(0);
    await withDb((db) => db.update(outboxJobs).set({ sendLeaseUntil: new Date(Date.now() - 1000) }).where(eq(outboxJobs.id, id)));
    expect((await withDb((db) => relayOutbox(db, e, { ids: [id] }))).sent).toBe(1);
    expect(await messagesIn(e)).toBe(1);
    expect((await rows([id]))[0].sendLeaseUntil).toBeNull();
  });

  it("while SQS is down: the failed row backs off, the rows not tried are given back at once, not a lease later", async () => {
    const down = { ...env, SQS_ENDPOINT: "http://127.0.0.1:9" } as Env; // nothing listens on the discard port
    const ids = await withDb(async (db) => [await enqueueJob(db, "analytics.refresh", null, { n: 1 }), await enqueueJob(db, "analytics.refresh", null, { n: 2 })]);
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
    const job = outboxRow("analytics.refresh", null, { probe: "leased" }, { leased: true });
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
