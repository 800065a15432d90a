import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outboxJobs } from "../db/schema";
import type { Env } from "../lib/env";
import type { ConsumerDefinition } from "../lib/jobs/consumer";
import { drainForMinute } from "../lib/jobs/consumer-worker";
import { enqueueJob } from "../lib/jobs/outbox";
import { ensureQueues } from "../local/services/sqs";
import { env, withDb } from "./helpers/harness";

/**
 * On Workers a consumer runs from a cron trigger once a minute. Work that comes due within that minute
 * (a publication's next attempt written to the outbox a few seconds ahead, an SQS retry delayed 5 s)
 * must run within the same cron run, not a minute or more later.
 */
describe("a consumer's cron run (drainForMinute)", () => {
  it("sends its kind's outbox rows as they come due and picks up its own retries, within the run", { timeout: 30_000 }, async () => {
    const e = { ...env, ...(await ensureQueues(env, `minute-${Date.now()}-`)) } as Env;
    const attempts = new Map<string, number>();
    const done: { id: string; at: number }[] = [];
    // The job whose first attempt fails (its id, once queued).
    let flaky = "";
    const consumer: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      async handle({ job }) {
        const n = (attempts.get(job.job_id) ?? 0) + 1;
        attempts.set(job.job_id, n);
        if (job.job_id === flaky && n === 1) throw new Error("transient");
        done.push({ id: job.job_id, at: Date.now() });
      },
    };
    const started = Date.now();
    // Due in 2 s (as publishing schedules its next attempt), and one whose first attempt fails (retry in ~5 s).
    const later = await withDb((db) => db.transaction((tx) => enqueueJob(tx, "analytics.refresh", null, {}, { notBefore: new Date(started + 2000) })));
    flaky = await withDb((db) => db.transaction((tx) => enqueueJob(tx, "analytics.refresh", null, {})));
    // Only these two rows: other test files share the outbox (and must keep their analytics jobs).
    const result = await drainForMinute(e, consumer, { budgetMs: 12_000, waitSeconds: 10, onlyJobIds: [later, flaky] });
    expect(done.map((d) => d.id).sort()).toEqual([later, flaky].sort());
    expect(attempts.get(flaky)).toBe(2);
    expect(result).toMatchObject({ processed: 2, failed: 1 });
    const laterAt = done.find((d) => d.id === later)!.at - started;
    expect(laterAt).toBeGreaterThanOrEqual(2000);
    // It woke up for it instead of long-polling 10 s past it.
    expect(laterAt).toBeLessThan(4000);
    for (const id of [later, flaky]) expect((await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.id, id))))[0].state).toBe("done");
  });
});
