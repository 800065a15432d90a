import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { outboundEvents, outboxJobs, publications, webhookDeliveries } from "../db/schema";
import { inOneTransaction } from "../lib/db/batch";
import { emitEvent } from "../lib/events/emit";
import { publicationConvergedStatements } from "../lib/events/subjects";
import type { EventType } from "../lib/events/types";
import { drainQueue } from "../lib/jobs/consumer";
import { relayOutbox } from "../lib/jobs/outbox";
import { eventDeliver } from "../queues/event-deliver";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { expectData, expectProblem } from "./helpers/typed";
import { startWebhookReceiver, verifySignature, type WebhookPeer } from "./peers/webhook-receiver";

/**
 * Outbound events end to end (CONTRACT §9 Integrations): written with the change that causes them, relayed through
 * the outbox to SQS, sent by the real event.deliver consumer to a real receiver that checks the signature itself.
 */

let platform: WebhookPeer; // where publications go
let hooks: WebhookPeer; // where events go
beforeAll(async () => {
  [platform, hooks] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
});
afterAll(() => Promise.all([platform.stop(), hooks.stop()]));

async function setup(events: EventType[] = ["publication.published", "publication.failed", "rendition.failed"]) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const endpoint = expectData(await client(owner.token).POST("/webhook-endpoints", { body: { workspace_id: ws, url: hooks.url, events } }), 201);
  return { owner, ws, endpoint };
}

async function publishOne(owner: { id: string; token: string }, ws: string, text = "Hello events") {
  const account = await newAccount(ws, owner.id, "webhook", { url: platform.url });
  const pub = expectData(
    await client(owner.token).POST("/publications", {
      body: { workspace_id: ws, title: "Launch", source_text: text, destinations: [{ social_account_id: account }] },
    }),
    201,
  );
  expectData(await client(owner.token).POST("/publications/{id}/publish-now", { params: { path: { id: pub.id } }, body: { expected_revision: 1 } }), 202);
  return pub;
}

const eventsOf = (ws: string) => withDb((db) => db.select().from(outboundEvents).where(eq(outboundEvents.workspaceId, ws)));
const deliveriesOf = (ws: string) => withDb((db) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.workspaceId, ws)));
const received = (eventId: string) => hooks.attempts.filter((a) => a.webhookId === eventId);

/** Relay event jobs and run the consumer once. */
async function runEvents() {
  await withDb((db) => relayOutbox(db, env, { kinds: ["event.deliver"] }));
  await drainQueue(env, eventDeliver, { waitSeconds: 0, budgetMs: 3000 });
}

/** Let time pass for a workspace's deliveries: waiting ones and their retry jobs become due now. */
async function makeDueNow(ws: string) {
  await withDb(async (db) => {
    const ids = (await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.workspaceId, ws))).map((d) => d.id);
    if (ids.length === 0) return;
    await db.update(webhookDeliveries).set({ nextAttemptAt: sql`now()` }).where(inArray(webhookDeliveries.id, ids));
    await db
      .update(outboxJobs)
      .set({ nextAttemptAt: sql`now()` })
      .where(and(eq(outboxJobs.kind, "event.deliver"), isNull(outboxJobs.sentAt), inArray(sql`${outboxJobs.payload}->>'delivery_id'`, ids)));
  });
}

async function runUntil(ws: string, done: (statuses: string[]) => boolean, rounds = 12) {
  for (let i = 0; i < rounds; i++) {
    await runEvents();
    const statuses = (await deliveriesOf(ws)).map((d) => d.status);
    if (done(statuses)) return statuses;
    await makeDueNow(ws);
  }
  throw new Error("deliveries did not settle");
}

const deliveriesLog = (token: string, id: string) => client(token).GET("/webhook-endpoints/{id}/deliveries", { params: { path: { id } } });

describe("outbound events", () => {
  it("a publication published through the pipeline sends a signed publication.published, webhook-id = event id", async () => {
    const { owner, ws, endpoint } = await setup();
    const pub = await publishOne(owner, ws);
    expect(await runPipeline(pub.id)).toBe("published");
    const [event] = await eventsOf(ws);
    expect(event).toMatchObject({ type: "publication.published", workspaceId: ws });
    // What the consumer logs meanwhile: ids and codes, never the secret or the endpoint's URL.
    const logged: string[] = [];
    const spies = (["info", "warn", "error", "log"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      }),
    );
    try {
      await runUntil(ws, (s) => s.every((x) => x === "delivered"));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(logged.join("\n")).toContain("event delivery attempt");
    expect(logged.join("\n")).not.toContain(endpoint.secret.slice("whsec_".length, 20));
    expect(logged.join("\n")).not.toContain(hooks.url);
    const [attempt] = received(event.id);
    expect(attempt.webhookId).toBe(event.id);
    // Verified by the receiver's own code (node:crypto), with the secret the API showed once.
    expect(verifySignature(endpoint.secret, attempt.webhookId, attempt.timestamp, attempt.raw, attempt.signature ?? "")).toBe(true);
    expect(attempt.body).toMatchObject({
      id: event.id,
      type: "publication.published",
      workspace_id: ws,
      created_at: event.createdAt.toISOString(),
      data: { publication_id: pub.id, title: "Launch", status: "published", renditions: [{ status: "published", platform: "webhook" }] },
    });
    // Ids, statuses and titles only: never the text that was published.
    expect(attempt.raw).not.toContain("Hello events");
    const log = expectData(await deliveriesLog(owner.token, endpoint.id));
    expect(log).toMatchObject([
      {
        event_id: event.id,
        event_type: "publication.published",
        status: "delivered",
        attempts: 1,
        last_status_code: 200,
        attempt_log: [{ number: 1, status_code: 200 }],
      },
    ]);
  });

  it("a failed delivery sends rendition.failed and publication.failed; an unsubscribed type is not written", async () => {
    const { owner, ws } = await setup(["publication.failed", "rendition.failed"]);
    platform.failNext(1, 400);
    const pub = await publishOne(owner, ws, "Refused");
    expect(await runPipeline(pub.id)).toBe("failed");
    const types = (await eventsOf(ws)).map((e) => e.type).sort();
    expect(types).toEqual(["publication.failed", "rendition.failed"]);
    await runUntil(ws, (s) => s.every((x) => x === "delivered"));
    const failed = hooks.attempts.find((a) => a.body?.type === "rendition.failed" && a.body?.data?.publication_id === pub.id);
    expect(failed?.body.data).toMatchObject({ status: "failed", error_code: expect.any(String), recovery_action: expect.any(String) });
  });

  it("a workspace without a subscribed endpoint gets no event rows", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const pub = await publishOne(owner, ws, "Nobody listens");
    expect(await runPipeline(pub.id)).toBe("published");
    expect(await eventsOf(ws)).toEqual([]);
  });

  it("a change that rolls back writes no event, no delivery and no job", async () => {
    const { owner, ws, endpoint } = await setup();
    const account = await newAccount(ws, owner.id, "webhook", { url: platform.url });
    const pub = expectData(
      await client(owner.token).POST("/publications", {
        body: { workspace_id: ws, title: "Never", source_text: "x", destinations: [{ social_account_id: account }] },
      }),
      201,
    );
    // Interactive transaction: the change, its event, then a failure injected before commit.
    await expect(
      withDb((db) =>
        db.transaction(async (tx) => {
          await tx.update(publications).set({ status: "published", updatedAt: sql`now()` }).where(eq(publications.id, pub.id));
          await emitEvent(tx, ws, "publication.published", { publication_id: pub.id });
          throw new Error("injected failure");
        }),
      ),
    ).rejects.toThrow("injected failure");
    // One batch (the settle path's shape): the conditional update, its event statements, then a failing statement.
    await expect(
      withDb((db) =>
        inOneTransaction(db, (q) => [
          q.update(publications).set({ status: "published", updatedAt: sql`now()` }).where(eq(publications.id, pub.id)),
          ...publicationConvergedStatements(ws, pub.id, "published", true),
          sql`select 1 / 0`,
        ]),
      ),
    ).rejects.toThrow();
    expect(await eventsOf(ws)).toEqual([]);
    expect(await deliveriesOf(ws)).toEqual([]);
    const jobs = await withDb((db) =>
      db
        .select()
        .from(outboxJobs)
        .where(and(eq(outboxJobs.kind, "event.deliver"), eq(outboxJobs.workspaceId, ws))),
    );
    expect(jobs).toEqual([]);
    // A batch whose update did not apply (the publication was not as read) writes no event either.
    await withDb((db) =>
      inOneTransaction(db, (q) => [
        q
          .update(publications)
          .set({ status: "published", updatedAt: sql`now()` })
          .where(and(eq(publications.id, pub.id), eq(publications.status, "publishing"))),
        ...publicationConvergedStatements(ws, pub.id, "published", true),
      ]),
    );
    expect(await eventsOf(ws)).toEqual([]);
    // And the same batch that applies writes one.
    await withDb((db) =>
      inOneTransaction(db, (q) => [
        q.update(publications).set({ status: "published", updatedAt: sql`now()` }).where(eq(publications.id, pub.id)),
        ...publicationConvergedStatements(ws, pub.id, "published", true),
      ]),
    );
    expect((await eventsOf(ws)).map((e) => e.type)).toEqual(["publication.published"]);
    expect(await deliveriesOf(ws)).toHaveLength(1);
    // Not to be sent to the receiver the next tests count on: its delivery goes with the endpoint.
    expect((await client(owner.token).DELETE("/webhook-endpoints/{id}", { params: { path: { id: endpoint.id } } })).response.status).toBe(204);
  });

  it("a failing endpoint is retried with backoff, each attempt in the log with its status code; redelivery keeps the webhook-id", async () => {
    const { owner, ws, endpoint } = await setup(["build.completed"]);
    await withDb((db) => db.transaction((tx) => emitEvent(tx, ws, "build.completed", { build_id: "bld_example", state: "completed" })));
    const [event] = await eventsOf(ws);
    hooks.failNext(2, 500);
    await runEvents();
    let [delivery] = await deliveriesOf(ws);
    expect(delivery).toMatchObject({ status: "retrying", attempts: 1, lastStatusCode: 500 });
    // Backed off by the database's clock: 5 s ± 20 % after the first failure, not at once.
    const wait = await withDb(
      async (db) => (await db.execute(sql`select extract(epoch from ${delivery.nextAttemptAt}::timestamptz - now())::float8 as s`)).rows[0],
    );
    expect(Number((wait as { s: number }).s)).toBeGreaterThan(2);
    expect(Number((wait as { s: number }).s)).toBeLessThan(7);
    await runEvents(); // not due yet: nothing sent
    expect(received(event.id)).toHaveLength(1);
    await runUntil(ws, (s) => s.every((x) => x === "delivered"));
    [delivery] = await deliveriesOf(ws);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 200 });
    expect(received(event.id).map((a) => a.answeredWith)).toEqual([500, 500, 200]);
    expect(new Set(received(event.id).map((a) => a.webhookId))).toEqual(new Set([event.id]));
    const [log] = expectData(await deliveriesLog(owner.token, endpoint.id));
    expect(log.attempt_log.map((a) => a.status_code)).toEqual([500, 500, 200]);

    // Redelivery: 202, a new round, the same webhook-id and body.
    const redelivered = await client(owner.token).POST("/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver", {
      params: { path: { id: endpoint.id, delivery_id: delivery.id } },
    });
    expect(expectData(redelivered, 202)).toMatchObject({ id: delivery.id, status: "pending" });
    // A second redelivery while it is pending: 409.
    expectProblem(
      await client(owner.token).POST("/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver", {
        params: { path: { id: endpoint.id, delivery_id: delivery.id } },
      }),
      409,
      "conflict",
    );
    await runUntil(ws, (s) => s.every((x) => x === "delivered"));
    const all = received(event.id);
    expect(all).toHaveLength(4);
    expect(all[3].webhookId).toBe(event.id);
    expect(all[3].raw).toBe(all[0].raw);
    expect((await deliveriesOf(ws))[0]).toMatchObject({ attempts: 4, status: "delivered" });
  });

  it("a redelivered job message does not send again or count an attempt twice", async () => {
    const { ws } = await setup(["build.failed"]);
    await withDb((db) => db.transaction((tx) => emitEvent(tx, ws, "build.failed", { build_id: "bld_twice", state: "failed" })));
    const [event] = await eventsOf(ws);
    // The same job handled twice (as a second SQS delivery of its message would be), at once.
    const { deliverEvent } = await import("../lib/events/deliver");
    await withDb((db) => Promise.all([deliverEvent(db, env, { event_id: event.id }), deliverEvent(db, env, { event_id: event.id })]));
    await withDb((db) => deliverEvent(db, env, { event_id: event.id }));
    expect(received(event.id)).toHaveLength(1);
    expect((await deliveriesOf(ws))[0]).toMatchObject({ attempts: 1, status: "delivered" });
  });

  it("an endpoint failing past the threshold is disabled and GET says why; a deleted endpoint receives nothing", async () => {
    const { owner, ws, endpoint } = await setup(["build.failed"]);
    hooks.failNext(10, 410); // not retryable: each delivery fails at its first attempt
    for (let i = 0; i < 10; i++) await withDb((db) => db.transaction((tx) => emitEvent(tx, ws, "build.failed", { build_id: `bld_${i}`, state: "failed" })));
    await runUntil(ws, (s) => s.length === 10 && s.every((x) => x === "failed"));
    const [shown] = expectData(await client(owner.token).GET("/webhook-endpoints", { params: { query: { workspace_id: ws } } }));
    expect(shown.disabled_at).not.toBeNull();
    expect(shown.disabled_reason).toMatch(/10 consecutive deliveries failed.*HTTP 410/);
    // Disabled: a new event is not written for it, and redelivery is refused.
    await withDb((db) => db.transaction((tx) => emitEvent(tx, ws, "build.failed", { build_id: "bld_late", state: "failed" })));
    expect(await eventsOf(ws)).toHaveLength(10);
    const [one] = await deliveriesOf(ws);
    expectProblem(
      await client(owner.token).POST("/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver", {
        params: { path: { id: endpoint.id, delivery_id: one.id } },
      }),
      409,
      "conflict",
    );

    // Enabled again by an admin (PATCH): the reason goes, redelivery is accepted and arrives.
    const enabled = expectData(await client(owner.token).PATCH("/webhook-endpoints/{id}", { params: { path: { id: endpoint.id } }, body: { enabled: true } }));
    expect(enabled).toMatchObject({ disabled_at: null, disabled_reason: null });
    expectData(
      await client(owner.token).POST("/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver", {
        params: { path: { id: endpoint.id, delivery_id: one.id } },
      }),
      202,
    );
    await runUntil(ws, (s) => s.includes("delivered"));
    expect(received(one.eventId).map((a) => a.answeredWith)).toEqual([410, 200]);

    // A fresh endpoint with a pending delivery, deleted before it is sent: nothing arrives.
    const other = await setup(["build.completed"]);
    await withDb((db) => db.transaction((tx) => emitEvent(tx, other.ws, "build.completed", { build_id: "bld_gone", state: "completed" })));
    const [pending] = await eventsOf(other.ws);
    expect((await client(other.owner.token).DELETE("/webhook-endpoints/{id}", { params: { path: { id: other.endpoint.id } } })).response.status).toBe(204);
    await runEvents();
    expect(received(pending.id)).toEqual([]);
  });
});
