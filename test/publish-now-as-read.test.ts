import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, outboxJobs, publications, renditions } from "../db/schema";
import { client } from "./helpers/client";
import { slugOf, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { newTeam } from "./helpers/team";
import { expectData, expectProblem } from "./helpers/typed";

// publish-now without an Idempotency-Key (lib/publishing/start-as-read.ts): a read, then one batch whose writes
// apply only if the publication is still as read. The same answers as the interactive path, and one winner.
async function draft() {
  const team = await newTeam();
  const hook = await newAccount(team.ws, team.owner.id, "webhook", {
    url: "http://127.0.0.1:9/hook",
    credentials: { secret: "whsec_" + Buffer.from("s").toString("base64") },
  });
  const created = await client(team.owner.token).POST("/publications", {
    body: { workspace_id: team.ws, title: "T", source_text: "Text", destinations: [{ social_account_id: hook }] },
  });
  return { ...team, pub: expectData(created, 201) };
}

const publishNow = (token: string, id: string, revision: number, idempotencyKey?: string) =>
  client(token).POST("/publications/{id}/publish-now", {
    params: { path: { id }, header: idempotencyKey ? { "idempotency-key": idempotencyKey } : {} },
    body: { expected_revision: revision },
  });
const jobsFor = (id: string) =>
  withDb((db) => db.select().from(outboxJobs)).then((jobs) => jobs.filter((j) => (j.payload as { publication_id?: string }).publication_id === id));
const auditsFor = (id: string) =>
  withDb((db) => db.select().from(auditEvents).where(eq(auditEvents.targetId, id))).then((rows) => rows.filter((r) => r.action === "publication.publish"));

describe("publish-now, one implementation with or without an Idempotency-Key", () => {
  it("with an Idempotency-Key runs the same statements: one job carrying the request id, replayed without a second", async () => {
    const { editor, pub } = await draft();
    const key = `k-${pub.id}`;
    const first = await publishNow(editor.token, pub.id, 1, key);
    const firstBody = expectData(first, 202);
    const again = await publishNow(editor.token, pub.id, 1, key);
    expect(again.response.status).toBe(202);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(firstBody);
    const jobs = await jobsFor(pub.id);
    expect(jobs.map((j) => j.id)).toEqual([firstBody.job_id]);
    expect(jobs[0].requestId).toBe(first.response.headers.get("x-request-id"));
    expect(await auditsFor(pub.id)).toHaveLength(1);
  });

  it("queues every rendition, the job and the audit entry together, and answers as before", async () => {
    const { editor, pub } = await draft();
    const res = await publishNow(editor.token, pub.id, 1);
    const body = expectData(res, 202);
    expect(body).toMatchObject({ publication_id: pub.id, revision: 2, job_id: expect.stringMatching(/^job_/), renditions: [{ status: "queued" }] });
    const [row] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    expect(row).toMatchObject({ status: "publishing", revision: 2 });
    expect(row.actualRunAt).not.toBeNull();
    expect((await jobsFor(pub.id)).map((j) => j.id)).toEqual([body.job_id]);
    expect(await auditsFor(pub.id)).toHaveLength(1);
    // The job carries the id of the request that caused it (CONTRACT §9), as the audit entry does.
    expect((await jobsFor(pub.id))[0].requestId).toBe(res.response.headers.get("x-request-id"));
    expect((await auditsFor(pub.id))[0].requestId).toBe(res.response.headers.get("x-request-id"));
    // Written under a send lease and sent right after the commit: sent, the lease given back.
    let job = (await jobsFor(pub.id))[0];
    for (let i = 0; i < 100 && !job.sentAt; i++) {
      await new Promise((r) => setTimeout(r, 20));
      job = (await jobsFor(pub.id))[0];
    }
    expect(job.sentAt).toBeInstanceOf(Date);
    expect(job.sendLeaseUntil).toBeNull();
  });

  it("twenty at once: one 202, the rest 409, one job, one audit entry", async () => {
    const { owner, pub } = await draft();
    const results = await Promise.all(Array.from({ length: 20 }, () => publishNow(owner.token, pub.id, 1)));
    expect(results.filter((r) => r.response.status === 202)).toHaveLength(1);
    for (const r of results.filter((r) => r.response.status !== 202)) {
      expect(r.response.status, JSON.stringify(r.error)).toBe(409);
      expect(["revision-conflict", "not-editable"]).toContain(slugOf(r.error ?? {}));
    }
    expect(await jobsFor(pub.id)).toHaveLength(1);
    expect(await auditsFor(pub.id)).toHaveLength(1);
  });

  it("racing an edit: exactly one of them wins, and a lost publish writes nothing", async () => {
    const { owner, pub } = await draft();
    const [published, edited] = await Promise.all([
      publishNow(owner.token, pub.id, 1),
      client(owner.token).PUT("/publications/{id}", { params: { path: { id: pub.id } }, body: { expected_revision: 1, source_text: "Edited" } }),
    ]);
    expect(
      [published.response.status === 202, edited.response.status === 200].filter(Boolean),
      `${JSON.stringify(published.error ?? published.data)} ${JSON.stringify(edited.error ?? edited.data)}`,
    ).toHaveLength(1);
    const jobs = await jobsFor(pub.id);
    const [row] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    if (published.response.status === 202) {
      expect(jobs).toHaveLength(1);
      expect(row.status).toBe("publishing");
    } else {
      expect(jobs).toHaveLength(0);
      expect(await auditsFor(pub.id)).toHaveLength(0);
      expect(row).toMatchObject({ status: "draft", revision: 2 });
      const rows = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, pub.id)));
      expect(rows.every((r) => r.status !== "queued")).toBe(true);
    }
  });

  it("refuses as the interactive path does: 404 outside the workspace, 403 for a viewer, 409 on a stale revision or when publishing", async () => {
    const { viewer, outsider, editor, pub } = await draft();
    expectProblem(await publishNow(outsider.token, pub.id, 1), 404, "not-found");
    expectProblem(await publishNow(viewer.token, pub.id, 1), 403, "forbidden");
    expectProblem(await publishNow(editor.token, pub.id, 7), 409, "revision-conflict");
    expect((await publishNow(editor.token, pub.id, 1)).response.status).toBe(202);
    expectProblem(await publishNow(editor.token, pub.id, 2), 409, "not-editable");
    expect(await jobsFor(pub.id)).toHaveLength(1);
  });
});
