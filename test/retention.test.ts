import { inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { auditEvents, idempotencyKeys, invitations, jobReceipts, oauthStates, outboxJobs, usageEvents, workspaces } from "../db/schema";
import { newId } from "../lib/ids";
import { RETENTION } from "../lib/retention/periods";
import { runRetention } from "../lib/retention/run";
import outboxRelay from "../queues/outbox-relay";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
const daysAgo = (d: number) => hoursAgo(d * 24);

async function plant() {
  const ids = {
    keyOld: newId("key"),
    keyNew: newId("key"),
    doneOld: newId("job"),
    doneNew: newId("job"),
    deadWeek: newId("job"),
    deadOld: newId("job"),
    pendingOld: newId("job"),
    queuedOld: newId("job"),
    receiptOld: newId("job"),
    receiptNew: newId("job"),
    invitationOld: newId("inv"),
    invitationAccepted: newId("inv"),
    invitationRecent: newId("inv"),
    oauthStateOld: newId("ost"),
    oauthStateExpiredRecently: newId("ost"),
    oauthStateLive: newId("ost"),
    usageOld: newId("pub"),
    usageRecent: newId("pub"),
  };
  const owner = await newUser();
  const workspace = await newWorkspace(owner);
  await withDb(async (db) => {
    const invitation = (id: string, expiresAt: Date, acceptedAt: Date | null = null) => ({
      id,
      workspaceId: workspace,
      email: `${id}@example.com`,
      role: "editor" as const,
      tokenHash: id,
      createdAt: new Date(expiresAt.getTime() - 7 * 24 * 3600_000),
      expiresAt,
      acceptedAt,
    });
    await db.insert(invitations).values([
      invitation(ids.invitationOld, daysAgo(RETENTION.invitationsDays + 1)),
      invitation(ids.invitationAccepted, daysAgo(RETENTION.invitationsDays + 1), daysAgo(RETENTION.invitationsDays + 5)),
      // Expired, but not yet a month ago: still listed, so an admin can see it went unused.
      invitation(ids.invitationRecent, daysAgo(RETENTION.invitationsDays - 1)),
    ]);
    const state = (id: string, expiresAt: Date) => ({
      stateHash: id,
      platform: "x" as const,
      workspaceId: workspace,
      userId: owner.id,
      expiresAt,
      createdAt: new Date(expiresAt.getTime() - 10 * 60_000),
    });
    await db
      .insert(oauthStates)
      .values([
        state(ids.oauthStateOld, hoursAgo(RETENTION.oauthStatesHours + 1)),
        state(ids.oauthStateExpiredRecently, hoursAgo(RETENTION.oauthStatesHours / 2)),
        state(ids.oauthStateLive, hoursAgo(-0.1)),
      ]);
    const [{ organizationId }] = await db.select({ organizationId: workspaces.organizationId }).from(workspaces).where(eq(workspaces.id, workspace));
    const usage = (subjectId: string, createdAt: Date) => ({ kind: "publication" as const, subjectId, organizationId, workspaceId: workspace, createdAt });
    // Older than any monthly usage period can reach, and one still inside the retention.
    await db
      .insert(usageEvents)
      .values([usage(ids.usageOld, daysAgo(RETENTION.usageEventsDays + 1)), usage(ids.usageRecent, daysAgo(RETENTION.usageEventsDays - 1))]);
    const key = (k: string, createdAt: Date) => ({
      userId: "usr_retention",
      workspaceId: "wsp_retention",
      operation: "test",
      key: k,
      fingerprint: "f",
      state: "done" as const,
      lockedUntil: createdAt,
      createdAt,
    });
    await db
      .insert(idempotencyKeys)
      .values([key(ids.keyOld, hoursAgo(RETENTION.idempotencyKeysHours + 1)), key(ids.keyNew, hoursAgo(RETENTION.idempotencyKeysHours - 1))]);
    const job = (id: string, state: "pending" | "queued" | "done" | "dead", finishedAt: Date | null, createdAt = daysAgo(30)) => ({
      id,
      kind: "analytics.refresh",
      workspaceId: null,
      payload: {},
      state,
      createdAt,
      sentAt: state === "pending" ? null : createdAt,
      finishedAt,
    });
    await db.insert(outboxJobs).values([
      job(ids.doneOld, "done", daysAgo(RETENTION.doneJobsDays + 1)),
      job(ids.doneNew, "done", daysAgo(RETENTION.doneJobsDays - 1)),
      job(ids.deadWeek, "dead", daysAgo(RETENTION.doneJobsDays + 1)),
      job(ids.deadOld, "dead", daysAgo(RETENTION.deadJobsDays + 1)),
      // Not finished, however old: never swept (the relay or an administrator still has to act on them).
      // (Due tomorrow, so the relay in the cron test below leaves it unsent.)
      { ...job(ids.pendingOld, "pending", null), nextAttemptAt: daysAgo(-1) },
      job(ids.queuedOld, "queued", null),
    ]);
    await db.insert(jobReceipts).values([
      { jobId: ids.receiptOld, kind: "analytics.refresh", state: "done", completedAt: daysAgo(RETENTION.receiptsDays + 1) },
      { jobId: ids.receiptNew, kind: "analytics.refresh", state: "done", completedAt: daysAgo(RETENTION.receiptsDays - 1) },
    ]);
  });
  return ids;
}

async function survivors(ids: Record<string, string>) {
  const all = Object.values(ids);
  return withDb(async (db) => {
    const keys = await db.select({ id: idempotencyKeys.key }).from(idempotencyKeys).where(inArray(idempotencyKeys.key, all));
    const jobs = await db.select({ id: outboxJobs.id }).from(outboxJobs).where(inArray(outboxJobs.id, all));
    const receipts = await db.select({ id: jobReceipts.jobId }).from(jobReceipts).where(inArray(jobReceipts.jobId, all));
    const invites = await db.select({ id: invitations.id }).from(invitations).where(inArray(invitations.id, all));
    const states = await db.select({ id: oauthStates.stateHash }).from(oauthStates).where(inArray(oauthStates.stateHash, all));
    const usage = await db.select({ id: usageEvents.subjectId }).from(usageEvents).where(inArray(usageEvents.subjectId, all));
    const left = new Set([...keys, ...jobs, ...receipts, ...invites, ...states, ...usage].map((r) => r.id));
    return Object.entries(ids)
      .filter(([, id]) => left.has(id))
      .map(([name]) => name)
      .sort();
  });
}

/** What plant() leaves after a sweep: everything within its retention, and nothing unfinished however old. */
const KEPT = [
  "deadWeek",
  "doneNew",
  "invitationRecent",
  "keyNew",
  "oauthStateExpiredRecently",
  "oauthStateLive",
  "pendingOld",
  "queuedOld",
  "receiptNew",
  "usageRecent",
].sort();

describe("bookkeeping retention (lib/retention/bookkeeping.ts)", () => {
  it("remove idempotency keys after 24 h, finished outbox rows, receipts, OAuth states, ended invitations and usage events after their retention; nothing unfinished", async () => {
    const ids = await plant();
    const result = await withDb((db) => runRetention(db));
    expect(result.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(result.oauthStates).toBeGreaterThanOrEqual(1);
    expect(await survivors(ids)).toEqual(KEPT);
  });

  it("work in bounded batches: a backlog is worked off over several runs", async () => {
    const planted = Array.from({ length: 7 }, () => newId("job"));
    await withDb((db) =>
      db
        .insert(jobReceipts)
        .values(planted.map((jobId) => ({ jobId, kind: "analytics.refresh", state: "done" as const, completedAt: daysAgo(RETENTION.receiptsDays + 2) }))),
    );
    const left = () => withDb(async (db) => (await db.select().from(jobReceipts).where(inArray(jobReceipts.jobId, planted))).length);
    const first = await withDb((db) => runRetention(db, { batchSize: 2, maxBatches: 2 }));
    expect(first.jobReceipts).toBe(4);
    expect(await left()).toBe(3);
    await withDb((db) => runRetention(db, { batchSize: 2, maxBatches: 2 }));
    expect(await left()).toBe(0);
  });

  it("runs from the outbox relay's cron, history sweeps included", async () => {
    const ids = await plant();
    // Audit events stand for the history sweeps (test/retention-sweeps.test.ts covers each).
    const audit = { auditOld: newId("aud"), auditNew: newId("aud") };
    const event = (id: string, days: number) => ({
      id,
      action: "test.retention",
      targetType: "test",
      targetId: id,
      actorKind: "system",
      occurredAt: sql`now() - make_interval(days => ${days})`,
    });
    await withDb((db) =>
      db.insert(auditEvents).values([event(audit.auditOld, RETENTION.auditEventsDays + 1), event(audit.auditNew, RETENTION.auditEventsDays - 1)]),
    );
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException() {} } as unknown as ExecutionContext;
    await outboxRelay.scheduled({} as ScheduledController, env, ctx);
    await Promise.all(pending);
    expect(await survivors(ids)).toEqual(KEPT);
    const audits = await withDb((db) =>
      db
        .select({ id: auditEvents.id })
        .from(auditEvents)
        .where(inArray(auditEvents.id, Object.values(audit))),
    );
    expect(audits.map((r) => r.id)).toEqual([audit.auditNew]);
    await withDb((db) => db.delete(outboxJobs).where(inArray(outboxJobs.id, Object.values(ids))));
  });
});
