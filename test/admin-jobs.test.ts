import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { eq, inArray, sql } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import { beforeAll, describe, expect, it } from "vitest";
import { jobReceipts, outboxJobs } from "../db/schema";
import type { Env } from "../lib/env";
import { drainQueue, type ConsumerDefinition } from "../lib/jobs/consumer";
import { MAX_ATTEMPTS } from "../lib/jobs/retry-policy";
import { JOB_KINDS, type JobKind } from "../lib/jobs/kinds";
import { jobMetrics } from "../lib/jobs/metrics";
import { enqueueJob, outboxRow, relayOutbox } from "../lib/jobs/outbox";
import { queueUrl, sqsClient } from "../lib/jobs/sqs";
import { ensureQueues } from "../local/services/sqs";
import { api, env, newUser, withDb } from "./helpers/harness";
import { clientWithEnv, expectData, expectError } from "./helpers/typed";

/**
 * GET /admin/jobs and POST /admin/jobs/{id}/redrive over real jobs: outbox → local SQS → a consumer
 * (a test consumer of the analytics kind on queues of its own, so that it can be made to fail).
 */
let e: Env;
let admin: { token: string };
let member: { token: string };
beforeAll(async () => {
  e = { ...env, ...(await ensureQueues(env, `adminjobs-${Date.now()}-`)) } as Env;
  [admin, member] = await Promise.all([newUser({ isAdmin: true }), newUser()]);
});

/** The typed client as `token`, over the gateway with this file's queues. */
const as = (token?: string) => clientWithEnv(token, e);
const redrive = (id: string, token: string) => as(token).POST("/admin/jobs/{id}/redrive", { params: { path: { id } } });

let fail = true;
const handled: string[] = [];
const consumer: ConsumerDefinition<"analytics.refresh"> = {
  kind: "analytics.refresh",
  async handle({ job }) {
    if (fail) throw new Error("the provider is down");
    handled.push(job.job_id);
  },
};
let retryDelay = 0;
const drain = () => drainQueue(e, consumer, { waitSeconds: 0, budgetMs: 2000, retryDelay: () => retryDelay });

async function newJob(): Promise<string> {
  // Not due (so no other test's relay sends it to the shared queue), sent here by id.
  const id = await withDb((db) => db.transaction((tx) => enqueueJob(tx, "analytics.refresh", null, {}, { notBefore: new Date(Date.now() + 3600_000) })));
  await withDb((db) => relayOutbox(db, e, { ids: [id] }));
  return id;
}
const row = (id: string) => withDb(async (db) => (await db.select().from(outboxJobs).where(eq(outboxJobs.id, id)))[0]);

describe("administrators' view of jobs", () => {
  it("only instance administrators may look or redrive", async () => {
    expect((await as().GET("/admin/jobs")).response.status).toBe(401);
    expect((await as(member.token).GET("/admin/jobs")).response.status).toBe(403);
    expect((await redrive("job_x", member.token)).response.status).toBe(403);
  });

  it("shows a failing job retrying then dead with its last error; redrive runs it once; never twice", async () => {
    fail = true;
    const id = await newJob();
    expect((await row(id)).state).toBe("queued");
    // One failed attempt, the next one 1 s later (so this drain stops there).
    retryDelay = 1;
    await drain();
    retryDelay = 0;
    const retrying = expectData(await as(admin.token).GET("/admin/jobs", { params: { query: { state: "retrying", kind: "analytics.refresh", limit: 200 } } }));
    expect(retrying.find((j) => j.id === id)).toMatchObject({
      $schema: expect.stringMatching(/\/api\/v1\/schemas\/AdminJob\.json$/),
      kind: "analytics.refresh",
      state: "retrying",
      attempts: 1,
      last_error: "the provider is down",
      dead_letter_record: false,
      finished_at: null,
    });
    await new Promise((r) => setTimeout(r, 1100));
    for (let i = 1; i < MAX_ATTEMPTS + 1 && (await row(id)).state !== "dead"; i++) await drain();
    const dead = await as(admin.token).GET("/admin/jobs", { params: { query: { state: "dead", limit: 200 } } });
    expect(dead.data?.find((j) => j.id === id)).toMatchObject({
      state: "dead",
      attempts: MAX_ATTEMPTS,
      last_error: "the provider is down",
      finished_at: expect.any(String),
    });

    // The cause is fixed; redrive. Same job id, fresh attempts, sent at once.
    fail = false;
    const redriven = expectData(await redrive(id, admin.token), 202);
    expect(redriven).toMatchObject({ id, state: "pending", attempts: 0 });
    for (let i = 0; i < 100 && (await row(id)).sentAt === null; i++) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 10 && (await row(id)).state !== "done"; i++) await drain();
    expect(await row(id)).toMatchObject({ state: "done", attempts: 1 });
    expect(handled.filter((h) => h === id)).toHaveLength(1);
    expect(await withDb((db) => db.select().from(jobReceipts).where(eq(jobReceipts.jobId, id)))).toEqual([expect.objectContaining({ state: "done" })]);

    // Done: a second redrive is refused, and a stray redelivery of the message does nothing.
    const again = await redrive(id, admin.token);
    expect(expectError(again, 409).type).toMatch(/not-editable$/);
    const sqs = sqsClient(e);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl(e, "analytics.refresh"),
        MessageBody: JSON.stringify({ job_id: id, kind: "analytics.refresh", workspace_id: null, payload: {} }),
      }),
    );
    sqs.destroy();
    expect((await drain()).duplicates).toBeGreaterThanOrEqual(1);
    expect(handled.filter((h) => h === id)).toHaveLength(1);
  });

  it("refuses to redrive a job that is not dead, a dead-letter record, or one that does not exist", async () => {
    fail = false;
    const queued = await newJob();
    expect((await redrive(queued, admin.token)).response.status).toBe(409);
    const record = await withDb((db) =>
      db.transaction((tx) =>
        enqueueJob(
          tx,
          "publication.publish",
          null,
          { publication_id: "pub_x", rendition_id: "ren_x", error_code: null, terminal_reason: null },
          { deadLetter: true },
        ),
      ),
    );
    await withDb((db) => db.update(outboxJobs).set({ state: "dead" }).where(eq(outboxJobs.id, record)));
    const refused = await redrive(record, admin.token);
    expect(expectError(refused, 409).detail).toMatch(/publish the publication again/);
    await withDb((db) => db.delete(outboxJobs).where(eq(outboxJobs.id, record)));
    expect((await redrive("job_nope", admin.token)).response.status).toBe(404);
    await drain();
  });

  it("pages with a cursor, filters, and refuses forged cursors and unknown states", async () => {
    const ids = [await newJob(), await newJob(), await newJob()];
    const seen: string[] = [];
    const filter = { state: "queued", kind: "analytics.refresh", limit: 1 } as const;
    // The first page has no cursor; each next one takes the cursor of the Link, which must carry the same filters.
    let cursor: string | null | undefined;
    for (let pages = 0; cursor !== null && pages < 500; pages++) {
      const page = await as(admin.token).GET("/admin/jobs", { params: { query: { ...filter, cursor } } });
      const jobs = expectData(page);
      expect(jobs.length).toBeLessThanOrEqual(1);
      for (const j of jobs) {
        expect(j.state).toBe("queued");
        seen.push(j.id);
      }
      const link = page.response.headers.get("link");
      const next = link ? new URL(/<([^>]+)>/.exec(link)![1]) : null;
      if (next) expect(next.pathname).toMatch(/\/admin\/jobs$/);
      if (next) expect(Object.fromEntries(next.searchParams)).toMatchObject({ state: filter.state, kind: filter.kind, limit: String(filter.limit) });
      cursor = next ? next.searchParams.get("cursor") : null;
      if (ids.every((id) => seen.includes(id))) break;
    }
    expect(ids.every((id) => seen.includes(id))).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    const forged = Buffer.from(JSON.stringify({ v: 1, p: ["not a date", "x"] })).toString("base64url");
    expect((await as(admin.token).GET("/admin/jobs", { params: { query: { cursor: forged } } })).response.status).toBe(422);
    // A state outside the declared enum, which the typed client forbids: sent raw.
    expect((await api("GET", "/admin/jobs?state=exploded", { token: admin.token })).status).toBe(422);
    expect((await as(admin.token).GET("/admin/jobs", { params: { query: { limit: 201 } } })).response.status).toBe(422);
    await drain();
  });
});

describe("job metrics (GET /admin/jobs/metrics)", () => {
  /** Rows in each state, written as the outbox holds them; none is due for a relay (so no other test sends one). */
  async function rowsInEveryState() {
    const at = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`;
    const row = (kind: JobKind, set: Partial<PgInsertValue<typeof outboxJobs>>) => ({
      ...set,
      ...outboxRow(kind, null, {}),
      nextAttemptAt: set.nextAttemptAt ?? sql`now()`,
    });
    const rows = [
      // Due 90 s ago, but under a send lease (its sender is busy), so it stays pending.
      row("analytics.refresh", { nextAttemptAt: at(-90), sendLeaseUntil: at(3600) }),
      row("analytics.refresh", { nextAttemptAt: at(3600) }),
      row("analytics.refresh", { state: "queued", sentAt: at(0) }),
      row("analytics.refresh", { state: "retrying", sentAt: at(0), attempts: 1 }),
      row("analytics.refresh", { state: "dead", sentAt: at(0), attempts: 8, finishedAt: at(0) }),
      row("analytics.refresh", { state: "done", sentAt: at(-1800), finishedAt: at(-1800) }),
      row("analytics.refresh", { state: "done", sentAt: at(-7200), finishedAt: at(-7200) }),
      row("build.generate", { state: "queued", sentAt: at(0) }),
    ];
    await withDb((db) => db.insert(outboxJobs).values(rows));
    return rows.map((r) => r.id);
  }
  const zeros = { pending: 0, in_flight: 0, retrying: 0, dead: 0, oldest_pending_age_seconds: null, done_last_hour: 0 };

  it("counts each kind's jobs by state in one statement, every kind listed, ages by the database's clock", async () => {
    const ids = await rowsInEveryState();
    try {
      const metrics = await withDb((db) => jobMetrics(db, { onlyJobIds: ids }));
      expect(metrics.map((m) => m.kind)).toEqual(Object.keys(JOB_KINDS));
      const byKind = Object.fromEntries(metrics.map(({ kind, ...m }) => [kind, m]));
      expect(byKind["analytics.refresh"]).toEqual({
        pending: 2,
        in_flight: 1,
        retrying: 1,
        dead: 1,
        oldest_pending_age_seconds: expect.any(Number),
        done_last_hour: 1,
      });
      expect(byKind["analytics.refresh"].oldest_pending_age_seconds).toBeGreaterThanOrEqual(90);
      expect(byKind["analytics.refresh"].oldest_pending_age_seconds).toBeLessThan(95);
      expect(byKind["build.generate"]).toEqual({ ...zeros, in_flight: 1 });
      for (const kind of ["messages.refresh", "publication.publish", "repost.execute"]) expect(byKind[kind]).toEqual(zeros);
    } finally {
      await withDb((db) => db.delete(outboxJobs).where(inArray(outboxJobs.id, ids)));
    }
  });

  it("answers instance administrators only, each kind an object with $schema", async () => {
    expect((await as().GET("/admin/jobs/metrics")).response.status).toBe(401);
    const refused = await as(member.token).GET("/admin/jobs/metrics");
    expect(refused.response.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(expectError(refused, 403).type).toMatch(/forbidden$/);
    const ids = await rowsInEveryState();
    try {
      const res = expectData(await as(admin.token).GET("/admin/jobs/metrics"));
      expect(res.map((m) => m.kind)).toEqual(Object.keys(JOB_KINDS));
      for (const m of res) expect(m.$schema).toMatch(/\/api\/v1\/schemas\/JobKindMetrics\.json$/);
      // Other tests share the outbox: at least what this one wrote.
      const analytics = res.find((m) => m.kind === "analytics.refresh");
      for (const key of ["pending", "in_flight", "retrying", "dead", "done_last_hour"] as const) expect(analytics?.[key]).toBeGreaterThanOrEqual(1);
      expect(analytics?.oldest_pending_age_seconds).toBeGreaterThanOrEqual(90);
      // The OpenAPI document itself is not one of its operations: read raw, typed as far as this check reads it.
      type Doc = { paths: Record<string, { get: { responses: Record<number, { content: Record<string, { schema: { items: { $ref: string } } }> }> } }> };
      const doc = (await api<Doc>("GET", "/openapi.json")).body;
      expect(doc.paths["/admin/jobs/metrics"].get.responses[200].content["application/json"].schema.items.$ref).toBe("#/components/schemas/JobKindMetrics");
    } finally {
      await withDb((db) => db.delete(outboxJobs).where(inArray(outboxJobs.id, ids)));
    }
  });
});
