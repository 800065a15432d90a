import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { analyticsCollectionRuns, jobReceipts, outboxJobs } from "../db/schema";
import { drainQueue, type ConsumerDefinition } from "../lib/jobs/consumer";
import { relayOutbox } from "../lib/jobs/outbox";
import { MAX_ATTEMPTS } from "../lib/jobs/retry-policy";
import { queueUrl, sqsClient } from "../lib/jobs/sqs";
import type { Env } from "../lib/env";
import { ensureQueues } from "../local/services/sqs";
import { analyticsRefresh } from "../queues/analytics-refresh";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { clientWithEnv, expectData } from "./helpers/typed";

async function until<T>(probe: () => Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const outboxRow = (jobId: string) => withDb(async (db) => (await db.select().from(outboxJobs).where(eq(outboxJobs.id, jobId)))[0]);
const runForWorkspace = (ws: string) =>
  withDb(async (db) => (await db.select().from(analyticsCollectionRuns).where(eq(analyticsCollectionRuns.workspaceId, ws)))[0]);

/** Drain until the consumer has handled the given run (other tests' jobs share the queue). */
async function drainUntilCompleted(ws: string, e: Env = env) {
  return until(async () => {
    await drainQueue(e, analyticsRefresh, { waitSeconds: 1, budgetMs: 3000 });
    const run = await runForWorkspace(ws);
    return run?.status === "completed" ? run : null;
  }, 20_000);
}

describe("outbox → SQS → consumer", () => {
  it("POST /analytics/refresh writes the run and its job in one transaction; the consumer completes it", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const res = expectData(await client(owner.token).POST("/analytics/refresh", { body: { workspace_id: ws } }), 202);
    expect(res).toMatchObject({ queued: 0, message: expect.any(String) });
    expect(res.$schema).toMatch(/RefreshAnalyticsOutputBody\.json$/);

    const queued = await runForWorkspace(ws);
    expect(queued.status).toBe("queued");
    // The post-commit fast path hands the job to SQS without waiting for the relay.
    const sent = await until(async () => ((await outboxRow(queued.jobId))?.sentAt ? outboxRow(queued.jobId) : null));
    expect(sent.kind).toBe("analytics.refresh");

    const done = await drainUntilCompleted(ws);
    expect(done.completedAt).toBeInstanceOf(Date);
    const receipt = await withDb((db) => db.select().from(jobReceipts).where(eq(jobReceipts.jobId, queued.jobId)));
    expect(receipt).toEqual([expect.objectContaining({ state: "done", kind: "analytics.refresh" })]);
  });

  it("a redelivered job is recognised by its id and has no second effect", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    await client(owner.token).POST("/analytics/refresh", { body: { workspace_id: ws } });
    const done = await drainUntilCompleted(ws);
    const job = await outboxRow(done.jobId);
    // Simulate SQS delivering the same job again (at-least-once delivery).
    const sqs = sqsClient(env);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(env, "analytics.refresh"),
        MessageBody: JSON.stringify({ job_id: job.id, kind: job.kind, workspace_id: ws, payload: job.payload }),
      }),
    );
    sqs.destroy();
    let duplicates = 0;
    await until(async () => {
      duplicates += (await drainQueue(env, analyticsRefresh, { waitSeconds: 1, budgetMs: 3000 })).duplicates;
      return duplicates > 0;
    });
    const after = await runForWorkspace(ws);
    expect(after.completedAt?.getTime()).toBe(done.completedAt?.getTime());
  });

  it("a received batch is deleted once handled: nothing is left in the queue, in flight or not", async () => {
    const e = { ...env, ...(await ensureQueues(env, `batch-${Date.now()}-`)) } as Env;
    const handled: string[] = [];
    const probe: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      async handle({ job }) {
        handled.push(job.job_id);
      },
    };
    const sqs = sqsClient(e);
    for (let i = 0; i < 7; i++)
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl(e, "analytics.refresh"),
          MessageBody: JSON.stringify({ job_id: `job_batch_${Date.now()}_${i}`, kind: "analytics.refresh", workspace_id: null, payload: {} }),
        }),
      );
    while (handled.length < 7) await drainQueue(e, probe, { waitSeconds: 1, budgetMs: 3000 });
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl(e, "analytics.refresh"),
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      }),
    );
    sqs.destroy();
    expect(Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible)).toBe(0);
    expect(new Set(handled).size).toBe(7);
  });

  it("a steps job's last writes commit in its receipt's request; if the receipt's condition fails, its fallback runs, then the receipt", async () => {
    const e = { ...env, ...(await ensureQueues(env, `finish-${Date.now()}-`)) } as Env;
    const fallbacks: string[] = [];
    // The condition reads what the job's own statement set in that transaction: it holds only after it, in the same request.
    const ids = { holds: `job_finish_holds_${Date.now()}`, fails: `job_finish_fails_${Date.now()}` };
    const probe: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      mode: "steps",
      async handle({ job }) {
        return {
          statements: () => [sql`select set_config('herald.finish_probe', ${job.job_id === ids.holds ? "done" : "not yet"}, true)`],
          receiptIf: sql`current_setting('herald.finish_probe', true) = 'done'`,
          otherwise: async () => void fallbacks.push(job.job_id),
        };
      },
    };
    const sqs = sqsClient(e);
    for (const id of [ids.holds, ids.fails]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl(e, "analytics.refresh"),
          MessageBody: JSON.stringify({ job_id: id, kind: "analytics.refresh", workspace_id: null, payload: {} }),
        }),
      );
    }
    sqs.destroy();
    const realFetch = globalThis.fetch;
    const receiptRequests: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (body.includes('into \\"job_receipts\\"')) receiptRequests.push(body);
      return realFetch(input, init);
    }) as typeof fetch;
    try {
      let processed = 0;
      while (processed < 2) processed += (await drainQueue(e, probe, { waitSeconds: 1, budgetMs: 3000 })).processed;
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fallbacks).toEqual([ids.fails]);
    const receipts = await withDb((db) =>
      db
        .select()
        .from(jobReceipts)
        .where(inArray(jobReceipts.jobId, [ids.holds, ids.fails])),
    );
    expect(receipts.map((r) => [r.jobId, r.state]).sort()).toEqual(
      [
        [ids.fails, "done"],
        [ids.holds, "done"],
      ].sort(),
    );
    // One request for the job whose condition held; for the other, the failed try and then the receipt on its own.
    expect(receiptRequests.filter((b) => b.includes(ids.holds)).map((b) => b.includes("set_config"))).toEqual([true]);
    expect(receiptRequests.filter((b) => b.includes(ids.fails)).map((b) => b.includes("set_config"))).toEqual([true, false]);
  });

  it("while SQS is unreachable the job waits in the outbox, then goes out when SQS answers again", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const down = { ...env, SQS_ENDPOINT: "http://127.0.0.1:9" } as Env; // nothing listens on the discard port
    const res = await clientWithEnv(owner.token, down).POST("/analytics/refresh", { body: { workspace_id: ws } });
    expect(res.response.status).toBe(202); // the change is accepted; only delivery is deferred
    const run = await runForWorkspace(ws);
    const waiting = await until(async () => {
      const row = await outboxRow(run.jobId);
      return row.sendAttempts > 0 ? row : null;
    });
    expect(waiting.sentAt).toBeNull();
    expect(waiting.lastError).toBeTruthy();
    expect(waiting.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() - 1000);

    // The relay keeps failing while SQS is down, and reschedules with backoff.
    await withDb((db) =>
      db
        .update(outboxJobs)
        .set({ nextAttemptAt: new Date(0) })
        .where(eq(outboxJobs.id, run.jobId)),
    );
    await withDb((db) => relayOutbox(db, down, { ids: [run.jobId] }));
    expect((await outboxRow(run.jobId)).sendAttempts).toBe(waiting.sendAttempts + 1);

    // SQS is back: the relay sends it and the consumer completes the run.
    const result = await withDb((db) => relayOutbox(db, env, { ids: [run.jobId] }));
    expect(result.sent).toBe(1);
    expect((await outboxRow(run.jobId)).sentAt).toBeInstanceOf(Date);
    expect((await drainUntilCompleted(ws)).status).toBe("completed");
  });

  it("a job that keeps failing is retried, then lands in the dead-letter queue and is given up", async () => {
    const queues = await ensureQueues(env, `dlq-${Date.now()}-`);
    const e = { ...env, ...queues } as Env;
    const attempts: number[] = [];
    const gaveUp: string[] = [];
    const failing: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      async handle({ attempt }) {
        attempts.push(attempt);
        throw new Error("provider exploded");
      },
      async onGiveUp({ job }) {
        gaveUp.push(job.job_id);
      },
    };
    const sqs = sqsClient(e);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(e, "analytics.refresh"),
        MessageBody: JSON.stringify({ job_id: "job_poison", kind: "analytics.refresh", workspace_id: null, payload: { n: 1 } }),
      }),
    );
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) await drainQueue(e, failing, { waitSeconds: 0, budgetMs: 2000, retryDelay: () => 0 });
    expect(attempts).toEqual(Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1));
    expect(gaveUp).toEqual(["job_poison"]);
    const dlq = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.SQS_QUEUE_URL_ANALYTICS_DLQ, WaitTimeSeconds: 1 }));
    expect(JSON.parse(dlq.Messages![0].Body!)).toMatchObject({ job_id: "job_poison", attempt: MAX_ATTEMPTS, last_error: "provider exploded" });
    const main = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl(e, "analytics.refresh"), AttributeNames: ["ApproximateNumberOfMessages"] }));
    expect(Number(main.Attributes?.ApproximateNumberOfMessages)).toBe(0);
    // Given up, it is settled: a failed receipt, so a redelivery or a restart does not start it over.
    expect(await withDb((db) => db.select().from(jobReceipts).where(eq(jobReceipts.jobId, "job_poison")))).toEqual([
      expect.objectContaining({ state: "failed", attempts: MAX_ATTEMPTS, lastError: "provider exploded" }),
    ]);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(e, "analytics.refresh"),
        MessageBody: JSON.stringify({ job_id: "job_poison", kind: "analytics.refresh", workspace_id: null, payload: { n: 1 } }),
      }),
    );
    const again = await drainQueue(e, failing, { waitSeconds: 0, budgetMs: 2000, retryDelay: () => 0 });
    expect(again.duplicates).toBe(1);
    expect(attempts).toHaveLength(MAX_ATTEMPTS);
    sqs.destroy();
  });
});
