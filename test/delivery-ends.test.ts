import { eq, sql } from "drizzle-orm";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { deliveryAttempts, publications, renditions, renditionSegments } from "../db/schema";
import { deliverClaimed } from "../lib/delivery/deliver";
import { processPublication } from "../lib/delivery/job";
import { MAX_ATTEMPTS } from "../lib/jobs/retry-policy";
import { END_STALLED_AFTER_SECONDS, sweepStalledDeliveries } from "../lib/delivery/stalled";
import { claimRenditions, publishedGroup, recordFailure, recordPosted } from "../lib/delivery/store";
import { inOneTransactionNamed } from "../lib/db/batch";
import type { Database } from "../lib/db/client";
import { commitFinish } from "../lib/jobs/consumer";
import { publish } from "../queues/publish";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

// CONTRACT §9 "Every delivery ends", rule by rule, against the real database and a real webhook receiver.
const SECRET = "whsec_" + Buffer.from("delivery ends").toString("base64");
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterAll(() => receiver.stop());
afterEach(() => vi.restoreAllMocks());

/** A publication to one webhook account, queued by publish-now; its rendition. */
async function queued(title: string) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  const created = await api("POST", "/publications", {
    token: owner.token,
    json: { workspace_id: ws, title, source_text: "Once only", destinations: [{ social_account_id: hook }] },
  });
  expect(created.status, created.text).toBe(201);
  const started = await api("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } });
  expect(started.status, started.text).toBe(202);
  const [rendition] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id)));
  return { publicationId: created.body.id as string, rendition };
}

const renditionRow = async (id: string) => (await withDb((db) => db.select().from(renditions).where(eq(renditions.id, id))))[0];
const publicationStatus = async (id: string) =>
  (await withDb((db) => db.select({ s: publications.status }).from(publications).where(eq(publications.id, id))))[0].s;
/** As if `seconds` had passed for this rendition: its lease and its due time move into the past. */
const timePasses = (id: string, seconds: number) =>
  withDb((db) =>
    db
      .update(renditions)
      .set({
        leaseUntil: sql`${renditions.leaseUntil} - make_interval(secs => ${seconds})`,
        nextAttemptAt: sql`${renditions.nextAttemptAt} - make_interval(secs => ${seconds})`,
        updatedAt: sql`${renditions.updatedAt} - make_interval(secs => ${seconds})`,
      })
      .where(eq(renditions.id, id)),
  );
const deliverOnce = (db: Database, id: string, jobId: string) => claimRenditions(db, [id], jobId).then(([claim]) => deliverClaimed(db, env, claim));
const webhookAttemptsFor = (renditionId: string) => receiver.attempts.filter((a) => a.body?.rendition_id === renditionId);

describe("a write holds only while its delivery holds the rendition", () => {
  it("a delivery whose lease lapsed and was taken over writes nothing when it wakes up", async () => {
    const { rendition } = await queued("Fenced");
    await withDb(async (db) => {
      const [first] = await claimRenditions(db, [rendition.id], "job_first");
      expect(first.rendition).toBeDefined();
      // The first delivery pauses past its lease; a second one takes the rendition over and fails it for good.
      await timePasses(rendition.id, 121);
      const [second] = await claimRenditions(db, [rendition.id], "job_second");
      expect(second.rendition).toBeDefined();
      const firstIds = { id: first.id, attemptId: first.attemptId, jobId: first.jobId };
      const secondIds = { id: second.id, attemptId: second.attemptId, jobId: second.jobId };
      // The first wakes up: its segment record, its published outcome and its failure all change nothing.
      expect(await recordPosted(db, firstIds, 0, { id: "late", url: null })).toBe(false);
      const [late] = await inOneTransactionNamed(db, () => [publishedGroup({ ...firstIds, workspaceId: rendition.workspaceId }, { id: "late", url: null })]);
      expect(late.published).toHaveLength(0);
      const decision = {
        status: "failed",
        recoveryAction: "retry_later",
        errorAction: "x",
        errorCode: "http_500",
        terminalReason: "late",
        retryInSeconds: null,
      } as const;
      expect(await recordFailure(db, firstIds, { decision, info: { kind: "unavailable", retryable: false }, message: "late" })).toBe("lost");
      expect(await renditionRow(rendition.id)).toMatchObject({ status: "publishing", currentAttemptId: second.attemptId, externalId: null, errorCode: null });
      const [segment] = await db.select().from(renditionSegments).where(eq(renditionSegments.renditionId, rendition.id));
      expect(segment).toMatchObject({ status: "pending", externalId: null });
      // The holder's own writes apply.
      expect(await recordPosted(db, secondIds, 0, { id: "ok", url: null })).toBe(true);
    });
  });

  it("lease and retry times come from the database's clock, whatever the Worker's clock says", async () => {
    const { rendition } = await queued("Clock");
    receiver.failNext(1, 503);
    const skewed = Date.now() + 5 * 60_000; // the Worker 5 minutes ahead of the database
    vi.spyOn(Date, "now").mockReturnValue(skewed);
    await withDb(async (db) => {
      const [claim] = await claimRenditions(db, [rendition.id], "job_clock");
      const [{ lease }] = (await db.execute(sql`select extract(epoch from (lease_until - now())) as lease from renditions where id = ${rendition.id}`))
        .rows as { lease: string }[];
      expect(Number(lease)).toBeGreaterThan(100);
      expect(Number(lease)).toBeLessThanOrEqual(120);
      expect(await deliverClaimed(db, env, claim)).toBe("retrying");
      const [{ wait }] = (await db.execute(sql`select extract(epoch from (next_attempt_at - now())) as wait from renditions where id = ${rendition.id}`))
        .rows as { wait: string }[];
      // 5 s ±20 % after the first failure: by the database's clock, not 5 minutes off.
      expect(Number(wait)).toBeGreaterThan(2);
      expect(Number(wait)).toBeLessThanOrEqual(6);
    });
  });
});

/** A webhook endpoint that holds every request until the test answers it. */
async function holdingEndpoint() {
  const held: { webhookId: string; res: http.ServerResponse }[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    held.push({ webhookId: String(req.headers["webhook-id"]), res });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held,
    arrived: async (n: number) => {
      while (held.length < n) await new Promise((r) => setTimeout(r, 10));
    },
    answer: (i: number) => held[i].res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: `post-${i}` })),
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("a delivery holds its rendition while a provider call runs", () => {
  async function heldRendition(url: string) {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const hook = await newAccount(ws, owner.id, "webhook", { url });
    const created = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "Slow", destinations: [{ social_account_id: hook }] },
    });
    expect((await api("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
    return (await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id))))[0];
  }
  const leaseLeft = async (id: string) =>
    Number(
      ((await withDb((db) => db.execute(sql`select extract(epoch from (lease_until - now())) as s from renditions where id = ${id}`))).rows[0] as { s: string })
        .s,
    );

  it("renews its lease while the call runs, so no second delivery takes it", async () => {
    const endpoint = await holdingEndpoint();
    try {
      const rendition = await heldRendition(endpoint.url);
      vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
      const delivering = withDb((db) => deliverOnce(db, rendition.id, "job_slow"));
      await endpoint.arrived(1);
      // The call has run most of the lease; the next renewal comes due.
      await withDb((db) => db.update(renditions).set({ leaseUntil: sql`now() + interval '5 seconds'` }).where(eq(renditions.id, rendition.id)));
      vi.advanceTimersByTime(30_000);
      const deadline = Date.now() + 5000;
      while ((await leaseLeft(rendition.id)) < 100 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await leaseLeft(rendition.id)).toBeGreaterThan(100);
      expect((await withDb((db) => claimRenditions(db, [rendition.id], "job_intruder")))[0].rendition).toBeUndefined();
      endpoint.answer(0);
      expect(await delivering).toBe("published");
    } finally {
      vi.useRealTimers();
      await endpoint.stop();
    }
  });

  it("one that lost its lease and wakes up after another took over writes nothing; the other publishes with the same webhook-id", async () => {
    const endpoint = await holdingEndpoint();
    try {
      const rendition = await heldRendition(endpoint.url);
      const first = withDb((db) => deliverOnce(db, rendition.id, "job_paused"));
      await endpoint.arrived(1);
      await timePasses(rendition.id, 121);
      const [second] = await withDb((db) => claimRenditions(db, [rendition.id], "job_takeover"));
      expect(second.rendition).toBeDefined();
      endpoint.answer(0); // the first wakes up to an answer
      expect(await first).toBe("lost");
      expect(await renditionRow(rendition.id)).toMatchObject({ status: "publishing", currentAttemptId: second.attemptId, externalId: null });
      const finishing = withDb((db) => deliverClaimed(db, env, second));
      await endpoint.arrived(2);
      endpoint.answer(1);
      expect(await finishing).toBe("published");
      expect(endpoint.held.map((h) => h.webhookId)).toEqual([rendition.deliveryKey, rendition.deliveryKey]);
      expect(await renditionRow(rendition.id)).toMatchObject({ status: "published", externalId: "post-1" });
    } finally {
      await endpoint.stop();
    }
  });
});

describe("an unknown outcome is reconciled at most 8 times", () => {
  it("a webhook answering 504 after accepting is re-sent with the same webhook-id, then fails outcome-unknown: verify on the platform", async () => {
    const { publicationId, rendition } = await queued("Gateway timeout");
    receiver.failNext(MAX_ATTEMPTS, 504); // every attempt: a 9th would find none queued here and succeed
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      await withDb((db) => deliverOnce(db, rendition.id, `job_504_${i}`));
      await timePasses(rendition.id, 1000);
    }
    const sent = webhookAttemptsFor(rendition.id);
    expect(sent).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(sent.map((a) => a.webhookId))).toEqual(new Set([rendition.deliveryKey]));
    expect(await renditionRow(rendition.id)).toMatchObject({
      status: "failed",
      errorCode: "outcome-unknown",
      recoveryAction: "verify_on_platform",
      nextAttemptAt: null,
      leaseUntil: null,
    });
    expect((await renditionRow(rendition.id)).errorAction).toMatch(/look at the account/);
    await withDb(async (db) => commitFinish(db, await processPublication(db, env, publicationId, "job_504_settle")));
    expect(await publicationStatus(publicationId)).toBe("failed");
    const api_ = await api("GET", `/publications/${publicationId}`, { token: (await newUser()).token });
    expect(api_.status).toBe(404); // another user's view of it: never exists
  });

  it("a claim past the last attempt ends the rendition without contacting the platform", async () => {
    const { rendition } = await queued("Crash loop");
    // Eight attempts that each died mid-call (a consumer crashing on it every time).
    await withDb((db) =>
      db.update(renditions).set({ status: "publishing", attemptCount: MAX_ATTEMPTS, leaseUntil: null }).where(eq(renditions.id, rendition.id)),
    );
    const before = webhookAttemptsFor(rendition.id).length;
    expect(await withDb((db) => deliverOnce(db, rendition.id, "job_crash_9"))).toBe("failed");
    expect(webhookAttemptsFor(rendition.id)).toHaveLength(before);
    expect(await renditionRow(rendition.id)).toMatchObject({ status: "failed", errorCode: "outcome-unknown", recoveryAction: "verify_on_platform" });
  });

  it("publishing again starts a new round of attempts for what was not confirmed", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
    const created = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, source_text: "Again", destinations: [{ social_account_id: hook }] },
    });
    const id = created.body.id as string;
    await withDb((db) => db.update(publications).set({ status: "failed" }).where(eq(publications.id, id)));
    await withDb((db) => db.update(renditions).set({ status: "failed", attemptCount: MAX_ATTEMPTS }).where(eq(renditions.publicationId, id)));
    expect((await api("POST", `/publications/${id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
    const [r] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, id)));
    expect(await withDb((db) => deliverOnce(db, r.id, "job_round_2"))).toBe("published");
  });
});

describe("nothing stays publishing", () => {
  it("a rendition whose job was lost gets a new job from the sweep, and one still stalled later ends failed with retry", async () => {
    const { publicationId, rendition } = await queued("Lost job");
    // The job never runs (lost). Not yet stalled: the sweep leaves it alone.
    await withDb(async (db) => {
      const swept = await sweepStalledDeliveries(db);
      expect(await sweptFor(db, swept, publicationId)).toBe(false);
    });
    await timePasses(rendition.id, 240);
    await withDb(async (db) => {
      expect(await sweptFor(db, await sweepStalledDeliveries(db), publicationId)).toBe(true);
      // Swept once: not again within the next minutes, even though it is still stalled.
      expect(await sweptFor(db, await sweepStalledDeliveries(db), publicationId)).toBe(false);
    });
    await timePasses(rendition.id, END_STALLED_AFTER_SECONDS);
    await withDb((db) => sweepStalledDeliveries(db));
    expect(await renditionRow(rendition.id)).toMatchObject({ status: "failed", recoveryAction: "retry", errorCode: "delivery-stalled" });
    expect(await publicationStatus(publicationId)).toBe("failed");
  });

  it("a rendition held by a delivery that died mid-call ends outcome-unknown, and a live lease is never swept", async () => {
    const { publicationId, rendition } = await queued("Died mid-call");
    await withDb((db) => claimRenditions(db, [rendition.id], "job_died"));
    await timePasses(rendition.id, END_STALLED_AFTER_SECONDS - 100); // lease lapsed long ago, but not stalled long enough
    await withDb((db) => sweepStalledDeliveries(db));
    expect((await renditionRow(rendition.id)).status).toBe("publishing");
    await timePasses(rendition.id, 300);
    await withDb((db) => sweepStalledDeliveries(db));
    expect(await renditionRow(rendition.id)).toMatchObject({ status: "failed", errorCode: "outcome-unknown", recoveryAction: "verify_on_platform" });
    expect(await publicationStatus(publicationId)).toBe("failed");

    const live = await queued("Held");
    await withDb((db) => claimRenditions(db, [live.rendition.id], "job_live"));
    await withDb((db) =>
      db
        .update(renditions)
        .set({ nextAttemptAt: sql`now() - interval '1 hour'`, updatedAt: sql`now() - interval '1 hour'` })
        .where(eq(renditions.id, live.rendition.id)),
    );
    await withDb((db) => sweepStalledDeliveries(db));
    expect((await renditionRow(live.rendition.id)).status).toBe("publishing");
  });

  it("a publish job given up after its last attempt ends the renditions nobody holds", async () => {
    const { publicationId, rendition } = await queued("Given up");
    await withDb((db) =>
      publish.onGiveUp!({
        db,
        env,
        job: { job_id: "job_gone", kind: "publication.publish", workspace_id: null, payload: { publication_id: publicationId } },
        error: new Error("boom"),
      }),
    );
    expect(await renditionRow(rendition.id)).toMatchObject({ status: "failed", recoveryAction: "retry" });
    expect(await publicationStatus(publicationId)).toBe("failed");
    const [attempts] = await withDb((db) =>
      db.select({ n: sql<number>`count(*)::int` }).from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, rendition.id)),
    );
    expect(attempts.n).toBe(0);
  });
});

/** Whether the sweep queued a job for this publication. */
async function sweptFor(db: Database, jobIds: string[], publicationId: string) {
  if (jobIds.length === 0) return false;
  const rows = await db.execute(
    sql`select 1 from outbox_jobs where id in (${sql.join(
      jobIds.map((j) => sql`${j}`),
      sql`, `,
    )}) and payload->>'publication_id' = ${publicationId}`,
  );
  return rows.rows.length > 0;
}
