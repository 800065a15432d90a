import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxJobs, publications } from "../db/schema";
import type { Env } from "../lib/env";
import { drawRunAt, startDuePublications } from "../lib/publishing/schedule";
import type { paths } from "./helpers/api-types";
import { client } from "./helpers/client";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { clientWithEnv, expectData, nextLink, type Schemas } from "./helpers/typed";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.stop());

type ListQuery = Omit<paths["/publications"]["get"]["parameters"]["query"], "workspace_id">;

async function draft(extra: Partial<Schemas["CreatePublicationRequest"]> = {}) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
  const res = await client(owner.token).POST("/publications", {
    body: { workspace_id: ws, source_text: "Scheduled hello", destinations: [{ social_account_id: hook }], ...extra },
  });
  return { owner, ws, pub: expectData(res, 201) };
}
const read = (token: string, id: string) => client(token).GET("/publications/{id}", { params: { path: { id } } });
const put = (token: string, id: string, body: Schemas["UpdatePublicationRequest"]) =>
  client(token).PUT("/publications/{id}", { params: { path: { id } }, body });

describe("scheduling", () => {
  it("draws the run time within the random delay", () => {
    const at = new Date("2026-12-01T10:00:00Z");
    expect(drawRunAt(at, 0, 0.99)).toEqual(at);
    expect(drawRunAt(at, 30, 0)).toEqual(at);
    const late = drawRunAt(at, 30, 0.999999)!.getTime() - at.getTime();
    expect(late).toBeGreaterThan(29 * 60_000);
    expect(late).toBeLessThanOrEqual(30 * 60_000);
    expect(drawRunAt(null, 30)).toBeNull();
  });

  it("a due scheduled publication is queued by the scheduler and published; one not yet due waits", async () => {
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const { owner, pub } = await draft({ scheduled_at: soon, random_delay_minutes: 10 });
    expect(pub).toMatchObject({ status: "scheduled", scheduled_at: soon, random_delay_minutes: 10 });
    const [row] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    expect(row.runAt!.getTime() - new Date(soon).getTime()).toBeGreaterThanOrEqual(0);
    expect(row.runAt!.getTime() - new Date(soon).getTime()).toBeLessThanOrEqual(10 * 60_000);
    const other = await draft({ scheduled_at: new Date(Date.now() + 7200_000).toISOString() });

    // Time passes for the first one only.
    await withDb((db) =>
      db
        .update(publications)
        .set({ runAt: new Date(Date.now() - 1000) })
        .where(eq(publications.id, pub.id)),
    );
    const started = await withDb((db) => startDuePublications(db));
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(await runPipeline(pub.id)).toBe("published");
    expect((await read(other.owner.token, other.pub.id)).data?.status).toBe("scheduled");
    const got = expectData(await read(owner.token, pub.id));
    expect(got.actual_run_at).not.toBeNull();
    // Running the scheduler again starts nothing twice.
    const again = await withDb((db) => startDuePublications(db));
    expect(again).not.toContain(started[0]);
  });

  it("PUT keeps a scheduled publication scheduled after its time, until its random delay runs; scheduled_at: null drops it", async () => {
    const { owner, pub } = await draft({ scheduled_at: new Date(Date.now() + 3600_000).toISOString(), random_delay_minutes: 30 });
    // Its time passed five minutes ago; the random delay has it run in ten.
    await withDb((db) =>
      db
        .update(publications)
        .set({ scheduledAt: sql`now() - interval '5 minutes'`, runAt: sql`now() + interval '10 minutes'` })
        .where(eq(publications.id, pub.id)),
    );
    const [before] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    const edited = expectData(await put(owner.token, pub.id, { expected_revision: 1, title: "Edited late" }));
    expect(edited).toMatchObject({ status: "scheduled", scheduled_at: before.scheduledAt!.toISOString(), title: "Edited late" });
    const [after] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    expect(after.runAt).toEqual(before.runAt);
    const dropped = await put(owner.token, pub.id, { expected_revision: 2, scheduled_at: null });
    expect(dropped.data).toMatchObject({ status: "draft", scheduled_at: null });
  });

  it("a scheduled_at in the past given to PUT is due at once by the database's clock; the scheduler starts it", async () => {
    const { owner, pub } = await draft();
    const res = expectData(
      await put(owner.token, pub.id, { expected_revision: 1, scheduled_at: new Date(Date.now() - 3600_000).toISOString(), random_delay_minutes: 60 }),
    );
    expect(res.status).toBe("scheduled");
    const [due] = await withDb((db) =>
      db
        .select({ due: sql<boolean>`${publications.runAt} <= now()` })
        .from(publications)
        .where(eq(publications.id, pub.id)),
    );
    expect(due.due).toBe(true);
    await withDb((db) => startDuePublications(db));
    expect(await runPipeline(pub.id)).toBe("published");
    expect(receiver.deliveries.filter((d) => d.body?.publication_id === pub.id)).toHaveLength(1);
  });

  it("calendar filters see scheduled and actual run times; search, bucket and platform filters narrow the list", async () => {
    const when = new Date(Date.now() + 86_400_000);
    const { owner, ws } = await draft({ title: "Calendar Entry", scheduled_at: when.toISOString() });
    const hook2 = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
    await client(owner.token).POST("/publications", {
      body: { workspace_id: ws, title: "Plain draft", source_text: "Nothing special", destinations: [{ social_account_id: hook2 }] },
    });
    const list = (query: ListQuery) => client(owner.token).GET("/publications", { params: { query: { workspace_id: ws, ...query } } });
    const titles = async (query: ListQuery) => expectData(await list(query)).map((p) => p.title);
    const from = new Date(when.getTime() - 60_000).toISOString();
    const before = new Date(when.getTime() + 60_000).toISOString();
    expect(await titles({ calendar_from: from, calendar_before: before })).toEqual(["Calendar Entry"]);
    expect(await titles({ search: "calendar ENTRY" })).toEqual(["Calendar Entry"]);
    expect(await titles({ search: "special" })).toEqual(["Plain draft"]);
    expect((await list({ search: "100%" })).data).toEqual([]); // % is matched literally
    expect(await titles({ activity_bucket: "scheduled" })).toEqual(["Calendar Entry"]);
    expect(await titles({ activity_bucket: "draft" })).toEqual(["Plain draft"]);
    expect((await list({ platform: "webhook" })).data).toHaveLength(2);
    expect((await list({ platform: "bluesky" })).data).toHaveLength(0);
    const newestFirst = await titles({});
    expect(newestFirst).toEqual(["Plain draft", "Calendar Entry"]);
    const page1 = await list({ limit: 1 });
    expect(page1.response.headers.get("link")).toMatch(/rel="next"/);
    // The next page through its Link's cursor; the Link keeps the workspace and the limit.
    const next = nextLink(page1.response);
    expect(next?.searchParams.get("workspace_id")).toBe(ws);
    expect(next?.searchParams.get("limit")).toBe("1");
    const cursor = next?.searchParams.get("cursor") ?? undefined;
    expect(cursor).toBeDefined();
    const page2 = await list({ limit: 1, cursor });
    expect(expectData(page2).map((p) => p.title)).toEqual(["Calendar Entry"]);
    expect(page2.response.headers.get("link")).toBeNull();
  });

  it("SQS down during publish-now: the job waits in the outbox and goes out when SQS returns", async () => {
    const { owner, pub } = await draft();
    const down = { ...env, SQS_ENDPOINT: "http://127.0.0.1:9" } as Env;
    const res = await clientWithEnv(owner.token, down).POST("/publications/{id}/publish-now", {
      params: { path: { id: pub.id } },
      body: { expected_revision: 1 },
    });
    const { job_id } = expectData(res, 202);
    if (job_id === null) throw new Error("publish-now queued no job");
    let job: typeof outboxJobs.$inferSelect | undefined;
    for (let i = 0; i < 100; i++) {
      [job] = await withDb((db) => db.select().from(outboxJobs).where(eq(outboxJobs.id, job_id)));
      if (job.sendAttempts > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job!.sentAt).toBeNull();
    expect(job!.sendAttempts).toBeGreaterThan(0);
    await withDb((db) => db.update(outboxJobs).set({ nextAttemptAt: new Date() }).where(eq(outboxJobs.id, job_id)));
    expect(await runPipeline(pub.id)).toBe("published");
    expect(receiver.deliveries.filter((d) => d.body?.publication_id === pub.id)).toHaveLength(1);
  });
});
