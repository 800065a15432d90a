import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryAttempts, publications, renditions, renditionSegments } from "../db/schema";
import { commitFinish } from "../lib/jobs/consumer";
import { deliverClaimed } from "../lib/delivery/deliver";
import { processPublication } from "../lib/delivery/job";
import { claimRenditions } from "../lib/delivery/store";
import type { Database } from "../lib/db/client";

/** Claim one rendition and deliver it, as a job's lane does. */
const deliverRendition = async (db: Database, e: typeof env, renditionId: string, jobId: string) =>
  deliverClaimed(db, e, (await claimRenditions(db, [renditionId], jobId))[0]);
import { api, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { startWebhookReceiver, type WebhookPeer } from "./peers/webhook-receiver";

// The claim, the attempt and the reads go in one request (lib/publishing/deliver-rendition.ts): of deliveries
// of one rendition running at once, one takes it and the others touch nothing. The last segment's record
// commits with the outcome.
const SECRET = "whsec_" + Buffer.from("claim test secret").toString("base64");
let receiver: WebhookPeer;
beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterAll(() => receiver.stop());

/** A new publication to `destinations` webhook accounts, queued by publish-now, and its renditions in position order. */
async function queuedPublication(title: string, destinations = 1) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hooks = [];
  for (let i = 0; i < destinations; i++) hooks.push(await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } }));
  const created = await api("POST", "/publications", {
    token: owner.token,
    json: { workspace_id: ws, title, source_text: "Once", destinations: hooks.map((h) => ({ social_account_id: h })) },
  });
  expect((await api("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
  const rows = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id)).orderBy(renditions.position));
  return { id: created.body.id as string, renditions: rows };
}

/** A webhook rendition of a new publication, queued by publish-now. */
const queuedRendition = async (title: string) => (await queuedPublication(title)).renditions[0];

/** Runs `action` and counts the SQL-over-HTTP requests it sends that claim renditions, and the claims in each. */
async function claimRequestsOf(action: () => Promise<unknown>): Promise<number[]> {
  const realFetch = globalThis.fetch;
  const claims: number[] = [];
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = typeof init?.body === "string" ? init.body : "";
    const n = body.match(/insert into \\"delivery_attempts\\"/g)?.length ?? 0; // quoted inside the JSON body
    if (n > 0) claims.push(n);
    return realFetch(input, init);
  }) as typeof fetch;
  try {
    await action();
  } finally {
    globalThis.fetch = realFetch;
  }
  return claims;
}

/**
 * Runs `action` with SQL-over-HTTP requests watched: `onOutcomes` sees each request that carries published outcomes
 * (one audit entry each) and how many; it may hold it (resolve later) or lose its answer after it commits.
 */
async function withOutcomeRequests(onOutcomes: (n: number, body: string) => Promise<"lose" | void>, action: () => Promise<unknown>) {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = typeof init?.body === "string" ? init.body : "";
    const n = body.match(/insert into \\"audit_events\\"/g)?.length ?? 0;
    const verdict = n > 0 ? await onOutcomes(n, body) : undefined;
    const res = await realFetch(input, init);
    if (verdict !== "lose") return res;
    await res.text();
    throw new TypeError("fetch failed");
  }) as typeof fetch;
  try {
    await action();
  } finally {
    globalThis.fetch = realFetch;
  }
}

const runJob = (publicationId: string, jobId: string) => withDb(async (db) => commitFinish(db, await processPublication(db, env, publicationId, jobId)));

type Queued = Awaited<ReturnType<typeof queuedPublication>>;

/** The publication is published, each rendition posted once and its one attempt succeeded. */
async function expectPublishedOnce(pub: Queued) {
  const [after] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
  expect(after.status).toBe("published");
  for (const r of pub.renditions) {
    expect(receiver.deliveries.filter((d) => d.body?.rendition_id === r.id)).toHaveLength(1);
    expect(await withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, r.id)))).toMatchObject([{ outcome: "succeeded" }]);
  }
}

/** Until the receiver has every rendition of the publication. */
async function allPosted(pub: Queued) {
  while (receiver.deliveries.filter((d) => pub.renditions.some((r) => r.id === d.body?.rendition_id)).length < pub.renditions.length)
    await new Promise((r) => setTimeout(r, 10));
}

describe("claiming a rendition", () => {
  it("five deliveries at once: one posts, four are skipped, one attempt on record", async () => {
    const rendition = await queuedRendition("Claim");

    const outcomes = await withDb((db) => Promise.all(Array.from({ length: 5 }, () => deliverRendition(db, env, rendition.id, "job_claim_test"))));
    expect(outcomes.sort()).toEqual(["published", "skipped", "skipped", "skipped", "skipped"]);
    const attempts = await withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, rendition.id)));
    expect(attempts).toMatchObject([{ number: 1, outcome: "succeeded", jobId: "job_claim_test" }]);
    const [after] = await withDb((db) => db.select().from(renditions).where(eq(renditions.id, rendition.id)));
    expect(after).toMatchObject({ status: "published", attemptCount: 1, currentAttemptId: attempts[0].id, leaseUntil: null });
    expect(receiver.deliveries.filter((d) => d.body?.rendition_id === rendition.id)).toHaveLength(1);
    // The last (here the only) segment's record went with the outcome: the post's id is on it.
    const segments = await withDb((db) => db.select().from(renditionSegments).where(eq(renditionSegments.renditionId, rendition.id)));
    expect(segments).toMatchObject([{ status: "published", externalId: after.externalId }]);
    expect(after.externalId).toMatch(/^rcv_/);
    // Done: a later delivery of it is skipped and records nothing.
    expect(await withDb((db) => deliverRendition(db, env, rendition.id, "job_claim_test"))).toBe("skipped");
    expect(await withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, rendition.id)))).toHaveLength(1);
  });

  it("a job claims its first deliveries together, one request for as many as it delivers at once; then one at a time", async () => {
    const pub = await queuedPublication("Six", 6);
    const claims = await claimRequestsOf(() => runJob(pub.id, "job_six"));
    expect(claims).toEqual([4, 1, 1]);
    await expectPublishedOnce(pub);
  });

  it("two jobs of one publication at once: every rendition is posted once, with one attempt", async () => {
    const pub = await queuedPublication("Twice", 6);
    await Promise.all([runJob(pub.id, "job_a"), runJob(pub.id, "job_b")]);
    await expectPublishedOnce(pub);
  });

  it("an outcome that commits but whose answer is lost: the rendition stays published, its attempt succeeded", async () => {
    const rendition = await queuedRendition("Lost answer");

    // The SQL-over-HTTP request carrying the outcome reaches the database and commits; its answer never arrives.
    const realFetch = globalThis.fetch;
    let lost = 0;
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await realFetch(input, init);
      const body = typeof init?.body === "string" ? init.body : "";
      if (lost === 0 && body.includes("delivery_attempts") && body.includes('"succeeded"')) {
        lost++;
        await res.text();
        throw new TypeError("fetch failed");
      }
      return res;
    }) as typeof fetch;
    let outcome: string;
    try {
      outcome = await withDb((db) => deliverRendition(db, env, rendition.id, "job_lost_answer"));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(lost).toBe(1);
    expect(outcome).toBe("published");
    const [after] = await withDb((db) => db.select().from(renditions).where(eq(renditions.id, rendition.id)));
    expect(after).toMatchObject({ status: "published", errorKind: null, errorCode: null });
    const attempts = await withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, rendition.id)));
    expect(attempts).toMatchObject([{ outcome: "succeeded", errorCode: null }]);
    expect(receiver.deliveries.filter((d) => d.body?.rendition_id === rendition.id)).toHaveLength(1);
  });
});

describe("a job's outcomes", () => {
  it("outcomes ready while another's request is in flight go together in the next; the last request also reads what settling needs", async () => {
    const pub = await queuedPublication("Together", 4);
    const groups: { n: number; settleRead: boolean }[] = [];
    await withOutcomeRequests(
      async (n, body) => {
        groups.push({ n, settleRead: body.includes('from \\"renditions\\" where \\"renditions\\".\\"publication_id\\"') });
        // Hold the first outcome until the other three deliveries have posted and are waiting.
        if (groups.length === 1) await allPosted(pub);
      },
      () => runJob(pub.id, "job_together"),
    );
    expect(groups).toEqual([
      { n: 1, settleRead: false },
      { n: 3, settleRead: true },
    ]);
    await expectPublishedOnce(pub);
  });

  it("a group whose request commits but whose answer is lost: each of its renditions stays published, and the job still settles", async () => {
    const pub = await queuedPublication("Lost group", 4);
    let requests = 0;
    await withOutcomeRequests(
      async () => {
        requests++;
        if (requests === 1) await allPosted(pub);
        if (requests === 2) return "lose";
      },
      () => runJob(pub.id, "job_lost_group"),
    );
    expect(requests).toBe(2);
    const [after] = await withDb((db) => db.select().from(publications).where(eq(publications.id, pub.id)));
    expect(after.status).toBe("published");
    for (const r of pub.renditions) {
      const [row] = await withDb((db) => db.select().from(renditions).where(eq(renditions.id, r.id)));
      expect(row).toMatchObject({ status: "published", errorCode: null });
      expect(await withDb((db) => db.select().from(deliveryAttempts).where(eq(deliveryAttempts.renditionId, r.id)))).toMatchObject([{ outcome: "succeeded" }]);
    }
  });
});
