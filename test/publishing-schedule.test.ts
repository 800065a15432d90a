import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { outboxJobs, publications } from "../db/schema";
import type { Env } from "../lib/env";
import { drawRunAt, startDuePublications } from "../lib/publishing/schedule";
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { runPipeline } from "./helpers/pipeline";
import { newAccount } from "./helpers/publishing";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.stop());

async function draft(json: object = {}) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url });
  const res = await api("POST", "/publications", {
    token: owner.token,
    json: { workspace_id: ws, source_text: "Scheduled hello", destinations: [{ social_account_id: hook }], ...json },
  });
  expect(res.status, res.text).toBe(201);
  return { owner, ws, pub: res.body };
}

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
    expect((await api("GET", `/publications/${other.pub.id}`, { token: other.owner.token })).body.status).toBe("scheduled");
    const got = (await api("GET", `/publications/${pub.id}`, { token: owner.token })).body;
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
    const edited = await api("PUT", `/publications/${pub.id}`, { token: owner.token, json: { expected_revision: 1, title: "Edited late" } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ status: "scheduled", scheduled_at: before.scheduledAt!.toISOString(), title: "Edited late" });
    const [after] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    expect(after.runAt).toEqual(before.runAt);
    const dropped = await api("PUT", `/publications/${pub.id}`, { token: owner.token, json: { expected_revision: 2, scheduled_at: null } });
    expect(dropped.body).toMatchObject({ status: "draft", scheduled_at: null });
  });

  it("a scheduled_at in the past given to PUT is due at once by the database's clock; the scheduler starts it", async () => {
    const { owner, pub } = await draft();
    const res = await api("PUT", `/publications/${pub.id}`, {
      token: owner.token,
      json: { expected_revision: 1, scheduled_at: new Date(Date.now() - 3600_000).toISOString(), random_delay_minutes: 60 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe("scheduled");
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
    await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, title: "Plain draft", source_text: "Nothing special", destinations: [{ social_account_id: hook2 }] },
    });
    const list = (q: string) => api("GET", `/publications?workspace_id=${ws}&${q}`, { token: owner.token });
    const from = new Date(when.getTime() - 60_000).toISOString();
    const before = new Date(when.getTime() + 60_000).toISOString();
    expect((await list(`calendar_from=${from}&calendar_before=${before}`)).body.map((p: any) => p.title)).toEqual(["Calendar Entry"]);
    expect((await list("search=calendar%20ENTRY")).body.map((p: any) => p.title)).toEqual(["Calendar Entry"]);
    expect((await list("search=special")).body.map((p: any) => p.title)).toEqual(["Plain draft"]);
    expect((await list("search=100%25")).body).toEqual([]); // % is matched literally
    expect((await list("activity_bucket=scheduled")).body.map((p: any) => p.title)).toEqual(["Calendar Entry"]);
    expect((await list("activity_bucket=draft")).body.map((p: any) => p.title)).toEqual(["Plain draft"]);
    expect((await list("platform=webhook")).body).toHaveLength(2);
    expect((await list("platform=bluesky")).body).toHaveLength(0);
    const newestFirst = (await list("")).body.map((p: any) => p.title);
    expect(newestFirst).toEqual(["Plain draft", "Calendar Entry"]);
    const page1 = await list("limit=1");
    expect(page1.headers.get("link")).toMatch(/rel="next"/);
    const next = new URL(/<([^>]+)>/.exec(page1.headers.get("link")!)![1]);
    const page2 = await api("GET", next.pathname + next.search, { token: owner.token });
    expect(page2.body.map((p: any) => p.title)).toEqual(["Calendar Entry"]);
    expect(page2.headers.get("link")).toBeNull();
  });

  it("SQS down during publish-now: the job waits in the outbox and goes out when SQS returns", async () => {
    const { owner, pub } = await draft();
    const down = { ...env, SQS_ENDPOINT: "http://127.0.0.1:9" } as Env;
    const res = await gateway.request(
      `/publications/${pub.id}/publish-now`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
        body: JSON.stringify({ expected_revision: 1 }),
      },
      down,
    );
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
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
