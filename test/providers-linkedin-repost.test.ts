import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxJobs, repostActivity, repostAttempts } from "../db/schema";
import type { Env } from "../lib/env";
import { linkedinAdapter } from "../lib/platforms/linkedin/adapter";
import { linkedinReshare, linkedinUnreshare, RESHARE_UNCONFIRMED } from "../lib/platforms/linkedin/repost";
import { executeRepost } from "../lib/repost/execute";
import { evaluateRepostPolicies } from "../lib/repost/run-evaluator";
import { seedItem } from "./helpers/analytics";
import { api as call, env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";
import { discardJobs, policyRow, publishedRendition, ruleData } from "./helpers/repost";
import { accountContext, recordingProgress, rendition } from "./peers/adapter-context";
import { startLinkedInApi, type LinkedInApiPeer } from "./peers/linkedin-api";

/**
 * LinkedIn reshares for repost automation (lib/platforms/linkedin/repost.ts, dispatched by lib/repost/execute.ts),
 * against the test double written from LinkedIn's Posts API reference (test/peers/linkedin-api.ts: LinkedIn cannot
 * run here). The worker cases run the repost worker's step (executeRepost) with an env carrying LinkedIn's app and
 * the double's base URL; the evaluator's jobs are discarded and the step is called directly, so no other test
 * file's consumer (with its own env) can take them.
 */

let li: LinkedInApiPeer;
let workerEnv: Env;
beforeAll(async () => {
  li = await startLinkedInApi();
  // LinkedIn's app and the double's base, as environment variables (they win over saved instance settings).
  const linkedin: Record<string, string> = {
    ALLOW_PRIVATE_URLS: "true",
    LINKEDIN_CLIENT_ID: "li-client",
    LINKEDIN_CLIENT_SECRET: "li-secret",
    LINKEDIN_API_BASE: li.url,
  };
  workerEnv = { ...env, ...linkedin };
});
afterAll(async () => {
  await li?.stop();
});

type Member = ReturnType<LinkedInApiPeer["addAccount"]>;
const direct = (m: Member) =>
  accountContext({ platform: "linkedin", instanceUrl: li.url, username: m.username, externalAccountId: m.id, credentials: { access_token: m.token } });

async function postBy(m: Member, text: string): Promise<string> {
  await linkedinAdapter.publish(direct(m), rendition([text]), recordingProgress());
  return li.postsOf(m.id).at(-1)!.urn;
}

/** A workspace with an author and a resharing member, a post by the author that met the policy's thresholds, and its attempt. */
async function scene(o: { readPosts?: boolean; stages?: { delay_seconds: number; unrepost_previous: boolean }[] } = {}) {
  const owner = await newUser();
  const ws = await newWorkspace(owner);
  const author = li.addAccount("Author");
  const fan = li.addAccount("Fan", { readPosts: o.readPosts });
  const source = await newAccount(ws, owner.id, "linkedin", { username: author.username, credentials: { access_token: author.token } });
  const target = await newAccount(ws, owner.id, "linkedin", { username: fan.username, credentials: { access_token: fan.token } });
  const urn = await postBy(author, `reshare me ${Math.random()}`);
  const { renditionId } = await publishedRendition(ws, source, "linkedin", urn, `https://www.linkedin.com/feed/update/${urn}/`);
  await seedItem(ws, source, { externalId: urn, publishedAt: new Date(), renditionId, metrics: { likes: 8 } });
  const policyId = await policyRow(ws, [source], [target], ruleData(o.stages ? { stages: o.stages } : {}));
  return { owner, ws, author, fan, source, target, urn, renditionId, policyId };
}

/** One evaluator pass; its jobs are discarded (see the header) and the attempts it queued are answered. */
async function evaluate(ws: string, policyId: string) {
  const jobs = await withDb((db) => evaluateRepostPolicies(db, { workspaceIds: [ws] }));
  await discardJobs(jobs);
  return attemptsOf(policyId);
}
const attemptsOf = (policyId: string) =>
  withDb((db) => db.select().from(repostAttempts).where(eq(repostAttempts.policyId, policyId)).orderBy(repostAttempts.stage));
const run = (attemptId: string) => withDb((db) => executeRepost(db, workerEnv, attemptId));
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe("LinkedIn reshares (the adapter's calls)", () => {
  it("a reshare is a post of the member's with reshareContext.parent and empty commentary; asked again, the existing one is found; undone by deleting it", async () => {
    const author = li.addAccount("A");
    const fan = li.addAccount("F");
    const parent = await postBy(author, "original");
    const sent = li.postRequests.length;
    const first = await linkedinReshare(direct(fan), parent, { askedBefore: false });
    expect(li.postRequests.at(-1)!.body).toEqual({
      author: `urn:li:person:${fan.id}`,
      commentary: "",
      visibility: "PUBLIC",
      distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
      reshareContext: { parent },
    });
    expect(await linkedinReshare(direct(fan), parent, { askedBefore: true })).toBe(first);
    expect(li.postRequests.length - sent).toBe(1);
    expect(li.resharesOf(fan.id, parent).map((p) => [p.urn, p.reshareContext])).toEqual([[first, { parent, root: parent }]]);
    // The reshare among the member's posts does not disturb reconciliation of its own posts.
    expect(await linkedinAdapter.reconcile(direct(fan), rendition(["original"]))).toEqual(new Map());

    await linkedinUnreshare(direct(fan), first);
    await linkedinUnreshare(direct(fan), first); // already gone: done
    expect(li.resharesOf(fan.id, parent)).toEqual([]);
    expect(li.deleteRequests).toEqual([first]);
  });
});

describe("repost automation on LinkedIn (the repost worker's step against the double)", () => {
  it("reshares a post whose thresholds are met, once; running the step again reshares nothing more", async () => {
    const s = await scene();
    const [attempt] = await evaluate(s.ws, s.policyId);
    expect(attempt).toMatchObject({ status: "queued", stage: 0, targetAccountId: s.target });
    await run(attempt.id);
    const reshares = li.resharesOf(s.fan.id, s.urn);
    expect(reshares).toHaveLength(1);
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "done", externalId: reshares[0].urn });
    await run(attempt.id);
    expect(await evaluate(s.ws, s.policyId)).toHaveLength(1);
    expect(li.resharesOf(s.fan.id, s.urn)).toHaveLength(1);
    const activity = await withDb((db) =>
      db.select().from(repostActivity).where(eq(repostActivity.policyId, s.policyId)).orderBy(repostActivity.at, repostActivity.id),
    );
    expect(activity.map((a) => [a.action, a.status, a.externalId])).toEqual([
      ["repost", "queued", null],
      ["repost", "done", reshares[0].urn],
    ]);
  }, 60_000);

  it("a lost answer: the reshare LinkedIn made is read back (r_member_social), within the step or by its retry; never a second one", async () => {
    const s = await scene();
    const [attempt] = await evaluate(s.ws, s.policyId);
    li.hangNext(1); // LinkedIn stores the reshare and never answers
    const sent = li.postRequests.length;
    await run(attempt.id); // times out, then finds it among the member's posts
    expect(li.postRequests.length - sent).toBe(1);
    const reshares = li.resharesOf(s.fan.id, s.urn);
    expect(reshares).toHaveLength(1);
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "done", externalId: reshares[0].urn });

    // A step that died after LinkedIn reshared (its mark committed, no answer kept): the queue's retry finds it.
    const t = await scene();
    const [other] = await evaluate(t.ws, t.policyId);
    await withDb((db) => db.update(repostAttempts).set({ errorCode: RESHARE_UNCONFIRMED }).where(eq(repostAttempts.id, other.id)));
    const made = await linkedinReshare(direct(t.fan), t.urn, { askedBefore: false });
    const before = li.postRequests.length;
    await run(other.id);
    expect(li.postRequests.length).toBe(before);
    expect(li.resharesOf(t.fan.id, t.urn).map((p) => p.urn)).toEqual([made]);
    expect((await attemptsOf(t.policyId))[0]).toMatchObject({ status: "done", externalId: made });
  }, 60_000);

  it("without r_member_social a lost answer is not asked again: the attempt's mark ends it failed, to be looked at on LinkedIn", async () => {
    const s = await scene({ readPosts: false });
    const [attempt] = await evaluate(s.ws, s.policyId);
    li.hangNext(1);
    expect(await outcome(run(attempt.id))).toMatchObject({ info: expect.objectContaining({ code: "timeout" }) });
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "queued", errorCode: RESHARE_UNCONFIRMED, attempts: 1 });
    const sent = li.postRequests.length;
    await run(attempt.id);
    expect(li.postRequests.length).toBe(sent);
    expect(li.resharesOf(s.fan.id, s.urn)).toHaveLength(1);
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "failed", errorCode: "reshare_outcome_unknown" });

    // A known refusal clears the mark: the next try asks (and, unanswered again, keeps it).
    const t = await scene({ readPosts: false });
    const [other] = await evaluate(t.ws, t.policyId);
    li.failNext(1, 503);
    expect(await outcome(run(other.id))).toMatchObject({ info: expect.objectContaining({ kind: "unavailable" }) });
    expect((await attemptsOf(t.policyId))[0]).toMatchObject({ status: "queued", errorCode: "http_503" });
    await run(other.id);
    expect(li.resharesOf(t.fan.id, t.urn)).toHaveLength(1);
    expect((await attemptsOf(t.policyId))[0]).toMatchObject({ status: "done" });
  }, 60_000);

  it("a 401 ends the attempt failed as an authentication error; nothing is reshared", async () => {
    const s = await scene();
    const [attempt] = await evaluate(s.ws, s.policyId);
    li.expireTokensOf(s.fan.id);
    await run(attempt.id);
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "failed", errorCode: "http_401" });
    const [failed] = await withDb((db) =>
      db
        .select()
        .from(repostActivity)
        .where(and(eq(repostActivity.policyId, s.policyId), eq(repostActivity.status, "failed"))),
    );
    expect(failed.reason).toMatch(/^http_401: LinkedIn answered 401/);
    expect(li.resharesOf(s.fan.id, s.urn)).toEqual([]);
  }, 60_000);

  it("a 429 waits for the reset: the attempt stays queued and its next job is due then, not at the queue's backoff", async () => {
    const s = await scene();
    const [attempt] = await evaluate(s.ws, s.policyId);
    const reset = new Date(Date.now() + 2 * 3_600_000);
    li.rateLimitNext(1, reset);
    await run(attempt.id); // not thrown: the job is done, a new one waits for the reset
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "queued", errorCode: "http_429", attempts: 1 });
    const jobs = await withDb((db) =>
      db
        .select()
        .from(outboxJobs)
        .where(and(eq(outboxJobs.kind, "repost.execute"), sql`${outboxJobs.payload}->>'attempt_id' = ${attempt.id}`)),
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0].sentAt).toBeNull();
    expect(Math.abs(jobs[0].nextAttemptAt.getTime() - reset.getTime())).toBeLessThan(5_000);
    expect(li.resharesOf(s.fan.id, s.urn)).toEqual([]);

    // At the reset, that job runs the step again.
    await discardJobs(jobs.map((j) => j.id));
    await run(attempt.id);
    expect(li.resharesOf(s.fan.id, s.urn)).toHaveLength(1);
    expect((await attemptsOf(s.policyId))[0]).toMatchObject({ status: "done", attempts: 2 });
  }, 60_000);

  it("unrepost_previous deletes the previous stage's reshare before resharing again", async () => {
    const s = await scene({
      stages: [
        { delay_seconds: 0, unrepost_previous: false },
        { delay_seconds: 0, unrepost_previous: true },
      ],
    });
    const [stage0] = await evaluate(s.ws, s.policyId);
    await run(stage0.id);
    const first = li.resharesOf(s.fan.id, s.urn)[0].urn;
    const [, stage1] = await evaluate(s.ws, s.policyId);
    expect(stage1).toMatchObject({ stage: 1, unrepostPrevious: true });
    await run(stage1.id);
    const now = li.resharesOf(s.fan.id, s.urn);
    expect(now).toHaveLength(1);
    expect(now[0].urn).not.toBe(first);
    expect(li.deleteRequests).toContain(first);
    expect((await attemptsOf(s.policyId)).map((a) => [a.stage, a.status, a.unrepostedAt !== null])).toEqual([
      [0, "done", true],
      [1, "done", false],
    ]);
  }, 60_000);

  it("a LinkedIn account may be a policy's target", async () => {
    const s = await scene();
    const res = await call("POST", "/repost-automation/policies", {
      token: s.owner.token,
      json: {
        workspace_id: s.ws,
        name: "li",
        enabled: true,
        source_account_ids: [s.source],
        target_account_ids: [s.target],
        rule: { ...ruleData(), stages: [{ delay_seconds: 0, unrepost_previous: false }] },
      },
    });
    expect(res.status, res.text).toBe(201);
  }, 60_000);

  it("GET /accounts/providers says LinkedIn reshares (limits and capabilities), with no reposts blocker", async () => {
    const user = await newUser();
    const res = await call("GET", "/accounts/providers", { token: user.token });
    expect(res.status, res.text).toBe(200);
    const linkedin = res.body.find((p: { platform: string }) => p.platform === "linkedin");
    expect(linkedin.limits.reposts).toBe(true);
    expect(linkedin.capabilities).toContain("reposts");
    expect(linkedin.readiness.blockers.map((b: { code: string }) => b.code)).not.toContain("reposts_not_available");
  });
});
