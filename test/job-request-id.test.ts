import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { analyticsCollectionRuns, outboxJobs } from "../db/schema";
import type { Env } from "../lib/env";
import { drainQueue, type ConsumerDefinition } from "../lib/jobs/consumer";
import { enqueueJob, relayOutbox } from "../lib/jobs/outbox";
import { ensureQueues } from "../local/services/sqs";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";

/**
 * CONTRACT §9: every job carries the request_id of the request that caused it into its logs. The outbox row
 * keeps it (outbox_jobs.request_id), the relay puts it in the job's message, the consumer's log lines name it.
 */
let captured: string[] = [];
beforeEach(() => {
  captured = [];
  for (const method of ["info", "warn", "error"] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void captured.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

describe("a job's request id", () => {
  it("a request's job keeps the request's id (x-request-id) on its outbox row", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const res = await api("POST", "/analytics/refresh", { token: owner.token, json: { workspace_id: ws } });
    expect(res.status, res.text).toBe(202);
    const [run] = await withDb((db) => db.select().from(analyticsCollectionRuns).where(eq(analyticsCollectionRuns.workspaceId, ws)));
    const [row] = await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.id, run.jobId)));
    expect(row.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.requestId).toBe(res.headers.get("x-request-id"));
  });

  it("is in the consumer's log line for the job; a job no request caused logs none", async () => {
    const e = { ...env, ...(await ensureQueues(env, `reqid-${Date.now()}-`)) } as Env;
    const requestId = crypto.randomUUID();
    const [caused, scheduled] = await withDb(async (db) => [
      await enqueueJob(db, "analytics.refresh", null, {}, { requestId }),
      await enqueueJob(db, "analytics.refresh", null, {}),
    ]);
    expect((await withDb((db) => relayOutbox(db, e, { ids: [caused, scheduled] }))).sent).toBe(2);
    const failing: ConsumerDefinition<"analytics.refresh"> = {
      kind: "analytics.refresh",
      async handle() {
        throw new Error("provider down");
      },
    };
    let failed = 0;
    for (let i = 0; i < 5 && failed < 2; i++) failed += (await drainQueue(e, failing, { waitSeconds: 1, budgetMs: 3000, retryDelay: () => 900 })).failed;
    const lines = captured.map((l) => JSON.parse(l)).filter((l) => l.msg === "job failed");
    expect(lines.find((l) => l.job_id === caused)).toMatchObject({ request_id: requestId, kind: "analytics.refresh", attempt: 1 });
    expect(lines.find((l) => l.job_id === scheduled)).not.toHaveProperty("request_id");
  });
});
