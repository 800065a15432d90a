import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, outboxJobs, publications, renditions, renditionSegments } from "../db/schema";
import { startDuePublications } from "../lib/publishing/schedule";
import { newUser, newWorkspace, withDb } from "./helpers/harness";
import { client } from "./helpers/client";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { expectData, expectProblem } from "./helpers/typed";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

// CONTRACT §9: POST /publications/{id}/cancel, and DELETE of a publication stuck publishing.
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.stop());

/** A publication to `destinations` webhook accounts of a new workspace; scheduled when `scheduledAt` is given. */
async function compose(destinations: number, scheduledAt?: string, members: Parameters<typeof newWorkspace>[1] = []) {
  const owner = await newUser();
  const ws = await newWorkspace(owner, members);
  const hooks = [];
  for (let i = 0; i < destinations; i++) hooks.push(await newAccount(ws, owner.id, "webhook", { url: receiver.url }));
  const res = await client(owner.token).POST("/publications", {
    body: {
      workspace_id: ws,
      source_text: "Cancel me",
      destinations: hooks.map((h) => ({ social_account_id: h })),
      ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
    },
  });
  return { owner, ws, id: expectData(res, 201).id };
}

/** Composed and queued by publish-now (revision 2); its renditions in position order. */
async function publishing(destinations: number) {
  const p = await compose(destinations);
  const res = await client(p.owner.token).POST("/publications/{id}/publish-now", { params: { path: { id: p.id } }, body: { expected_revision: 1 } });
  expect(res.response.status, JSON.stringify(res.error)).toBe(202);
  return { ...p, renditions: await renditionsOf(p.id) };
}

const renditionsOf = (id: string) => withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, id)).orderBy(renditions.position));
const cancel = (id: string, token: string, expected_revision: number) =>
  client(token).POST("/publications/{id}/cancel", { params: { path: { id } }, body: { expected_revision } });
const read = (id: string, token: string) => client(token).GET("/publications/{id}", { params: { path: { id } } });
const remove = (id: string, token: string, expected_revision: number) =>
  client(token).DELETE("/publications/{id}", { params: { path: { id }, query: { confirm: true, expected_revision } } });
/** A delivery holds the rendition: claimed, started, its lease running for two more minutes. */
const hold = (id: string) =>
  withDb((db) =>
    db
      .update(renditions)
      .set({ status: "publishing", currentAttemptId: "att_held", leaseUntil: sql`now() + interval '2 minutes'` })
      .where(eq(renditions.id, id)),
  );
const deliveriesTo = (deliveryKey: string) => receiver.attempts.filter((a) => a.webhookId === deliveryKey).length;

describe("cancel", () => {
  it("a scheduled publication becomes a draft, and the scheduler never starts it", async () => {
    const { owner, id } = await compose(1, new Date(Date.now() + 3600_000).toISOString());
    const res = expectData(await cancel(id, owner.token, 1));
    expect(res).toMatchObject({ status: "draft", revision: 2, scheduled_at: null });
    expect(res.$schema).toMatch(/PublicationResponse\.json$/);
    // Its time comes and goes: nothing starts it.
    await withDb((db) => db.update(publications).set({ scheduledAt: sql`now() - interval '1 minute'` }).where(eq(publications.id, id)));
    await withDb((db) => startDuePublications(db));
    expect((await read(id, owner.token)).data?.status).toBe("draft");
    const jobs = await withDb((db) => db.select().from(outboxJobs).where(sql`${outboxJobs.payload}->>'publication_id' = ${id}`));
    expect(jobs).toEqual([]);
    const audited = await withDb((db) =>
      db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, id), eq(auditEvents.action, "publication.cancel"))),
    );
    expect(audited).toHaveLength(1);
  });

  it("publishing with every rendition still queued: all canceled, a draft at once, and the consumer sends nothing", async () => {
    const { owner, id, renditions: before } = await publishing(2);
    const res = expectData(await cancel(id, owner.token, 2));
    expect(res).toMatchObject({ status: "draft", revision: 3 });
    expect(res.renditions.map((r) => [r.status, r.delivery.state])).toEqual([
      ["canceled", "canceled"],
      ["canceled", "canceled"],
    ]);
    // The publish job (already queued) runs: it finds nothing to send.
    for (let i = 0; i < 3; i++) await runPipeline(id);
    for (const r of before) expect(deliveriesTo(r.deliveryKey)).toBe(0);
    expect((await renditionsOf(id)).map((r) => [r.status, r.attemptCount])).toEqual([
      ["canceled", 0],
      ["canceled", 0],
    ]);
  });

  it("a rendition being sent, or a thread partly posted, finishes; the rest is canceled and never sent", async () => {
    const {
      owner,
      id,
      renditions: [held, waiting, partly],
    } = await publishing(3);
    await hold(held.id);
    // Segment 0 of the third went out before a retry was scheduled: it is finished, not left broken.
    await withDb(async (db) => {
      await db.update(renditions).set({ status: "retrying", nextAttemptAt: sql`now()` }).where(eq(renditions.id, partly.id));
      await db.update(renditionSegments).set({ status: "published", externalId: "rcv_partly" }).where(eq(renditionSegments.renditionId, partly.id));
    });
    const res = expectData(await cancel(id, owner.token, 2));
    expect(res.status).toBe("publishing");
    expect(res.renditions.map((r) => r.status)).toEqual(["publishing", "canceled", "retrying"]);

    // The held delivery stops (its lease lapses) and is taken up again; the publication then converges.
    await withDb((db) => db.update(renditions).set({ leaseUntil: sql`now() - interval '1 second'` }).where(eq(renditions.id, held.id)));
    expect(await runPipeline(id)).toBe("partially_published");
    expect((await renditionsOf(id)).map((r) => r.status)).toEqual(["published", "canceled", "published"]);
    expect(deliveriesTo(held.deliveryKey)).toBe(1);
    expect(deliveriesTo(waiting.deliveryKey)).toBe(0);
  });

  it("409 not-editable for a draft or published publication, 409 revision-conflict when stale, 403 for a viewer, 404 across workspaces", async () => {
    const { owner, id } = await compose(1);
    expectProblem(await cancel(id, owner.token, 1), 409, "not-editable");
    await withDb((db) => db.update(publications).set({ status: "published" }).where(eq(publications.id, id)));
    expectProblem(await cancel(id, owner.token, 1), 409, "not-editable");

    const viewer = await newUser();
    const stranger = await newUser();
    const scheduled = await compose(1, new Date(Date.now() + 3600_000).toISOString(), [{ id: viewer.id, role: "viewer" }]);
    const stale = await cancel(scheduled.id, scheduled.owner.token, 7);
    expect(expectProblem(stale, 409, "revision-conflict").current_revision).toBe(1);

    expectProblem(await cancel(scheduled.id, viewer.token, 1), 403, "forbidden");
    expectProblem(await cancel(scheduled.id, stranger.token, 1), 404, "not-found");
    expect((await read(scheduled.id, scheduled.owner.token)).data).toMatchObject({ status: "scheduled", revision: 1 });
  });

  it("of concurrent cancels holding the same revision exactly one succeeds", async () => {
    const { owner, id } = await compose(1, new Date(Date.now() + 3600_000).toISOString());
    const answers = await Promise.all([1, 2, 3].map(() => cancel(id, owner.token, 1)));
    expect(answers.map((a) => a.response.status).sort()).toEqual([200, 409, 409]);
  });
});

describe("deleting a publication stuck publishing", () => {
  it("is refused while a delivery holds a rendition, and allowed once none does", async () => {
    const {
      owner,
      id,
      renditions: [only],
    } = await publishing(1);
    await hold(only.id);
    const refused = await remove(id, owner.token, 2);
    expect(expectProblem(refused, 409, "not-editable").detail).toMatch(/cancel/);

    // The delivery died: its lease lapsed, and the publication is still publishing.
    await withDb((db) => db.update(renditions).set({ leaseUntil: sql`now() - interval '1 second'` }).where(eq(renditions.id, only.id)));
    const deleted = await remove(id, owner.token, 2);
    expect(deleted.response.status, JSON.stringify(deleted.error)).toBe(200);
    expect((await read(id, owner.token)).response.status).toBe(404);
  });
});
