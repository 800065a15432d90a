import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryAttempts, renditions, renditionSegments } from "../db/schema";
import { deliverRendition } from "../lib/publishing/deliver-rendition";
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

/** A webhook rendition of a new publication, queued by publish-now. */
async function queuedRendition(title: string) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const hook = await newAccount(ws, owner.id, "webhook", { url: receiver.url, credentials: { secret: SECRET } });
  const created = await api("POST", "/publications", { token: owner.token, json: { workspace_id: ws, title, source_text: "Once", destinations: [{ social_account_id: hook }] } });
  expect((await api("POST", `/publications/${created.body.id}/publish-now`, { token: owner.token, json: { expected_revision: 1 } })).status).toBe(202);
  const [rendition] = await withDb((db) => db.select().from(renditions).where(eq(renditions.publicationId, created.body.id)));
  return rendition;
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
