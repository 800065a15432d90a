import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectThreads } from "../lib/platforms/threads/analytics";
import { threadsAdapter } from "../lib/platforms/threads/adapter";
import { accountContext, recordingProgress, rendition } from "./peers/adapter-context";
import { startThreadsApi, type ThreadsApiPeer } from "./peers/threads-api";

/**
 * Threads analytics collection against the test double of the Threads API (test/peers/threads-api.ts, written
 * from Meta's Threads API reference: Threads cannot run here): followers, and each post's insights.
 */

let api: ThreadsApiPeer;
beforeAll(async () => {
  api = await startThreadsApi();
});
afterAll(async () => {
  await api.stop();
});

const account = (who: { id: string; username: string; token: string }) =>
  accountContext({ platform: "threads", instanceUrl: api.url, username: who.username, externalAccountId: who.id, credentials: { access_token: who.token } });

describe("Threads analytics collector (against a test double of the Threads API)", () => {
  it("reads followers and each post's views, likes, replies and reposts", async () => {
    const me = api.addAccount("metrics");
    api.setFollowers(me.id, 12);
    await threadsAdapter.publish(account(me), rendition(["counted"]), recordingProgress());
    const [post] = api.postsOf(me.id);
    api.setInsights(post.id, { views: 300, likes: 9, reposts: 2 });
    const out = await collectThreads(account(me), { cursor: null, done: true });
    expect(out.error).toBeUndefined();
    expect(out.account).toEqual([{ metric: "followers", value: 12, source: "threads_api" }]);
    expect(out.posts).toEqual([
      expect.objectContaining({
        externalId: post.id,
        excerpt: "counted",
        url: post.permalink,
        readings: [
          { metric: "views", value: 300, source: "threads_api" },
          { metric: "likes", value: 9, source: "threads_api" },
          { metric: "replies", value: 0, source: "threads_api" },
          { metric: "reposts", value: 2, source: "threads_api" },
        ],
      }),
    ]);
  });

  it("sizes each page to the read budget (one insights read per post) and discovers older posts over runs", async () => {
    const me = api.addAccount("many");
    for (let i = 0; i < 30; i++) await threadsAdapter.publish(account(me), rendition([`post ${i}`]), recordingProgress());
    const limits = { budget: 28, timeoutMs: 5000 };
    const first = await collectThreads(account(me), { cursor: null, done: false }, limits);
    expect(first.error).toBeUndefined();
    expect(first.reads).toBeLessThanOrEqual(28);
    expect(first.backfill.done).toBe(false);
    let state = first.backfill;
    const seen = new Set(first.posts.map((p) => p.externalId));
    for (let run = 0; run < 5 && !state.done; run++) {
      const next = await collectThreads(account(me), state, limits);
      for (const p of next.posts) seen.add(p.externalId);
      state = next.backfill;
    }
    expect(state.done).toBe(true);
    expect(seen.size).toBe(30);
  }, 60_000);

  it("a refused token fails the run as authentication", async () => {
    const me = api.addAccount("refused");
    api.expireToken(me.token);
    await expect(collectThreads(account(me), { cursor: null, done: true })).rejects.toMatchObject({ info: { kind: "authentication" } });
  });
});
