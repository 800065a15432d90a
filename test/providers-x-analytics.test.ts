import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectX } from "../lib/platforms/x/analytics";
import { accountContext } from "./peers/adapter-context";
import { startXApi, type XApiPeer } from "./peers/x-api";

/**
 * X analytics collection against the test double of the X API v2 (test/peers/x-api.ts, written from X's API
 * reference: X cannot run here): followers and each post's public_metrics, paged back by pagination_token.
 */

let x: XApiPeer;
beforeAll(async () => {
  x = await startXApi();
});
afterAll(async () => {
  await x.stop();
});

const account = (who: { id: string; username: string; token: string }) =>
  accountContext({ platform: "x", instanceUrl: x.url, username: who.username, externalAccountId: who.id, credentials: { access_token: who.token } });

describe("X analytics collector (against a test double of the X API v2)", () => {
  it("reads followers and each post's likes, reposts, replies and views (impressions)", async () => {
    const me = x.addAccount("metrics");
    x.setFollowers(me.id, 42);
    const post = x.addPost(me.id, "counted", new Date());
    x.setCounts(post.id, { like_count: 7, impression_count: 1000 });
    const out = await collectX(account(me), { cursor: null, done: true });
    expect(out.error).toBeUndefined();
    expect(out.account).toEqual([{ metric: "followers", value: 42, source: "x_api" }]);
    expect(out.posts).toEqual([
      expect.objectContaining({
        externalId: post.id,
        excerpt: "counted",
        url: `https://x.com/metrics/status/${post.id}`,
        readings: [
          { metric: "likes", value: 7, source: "x_api" },
          { metric: "reposts", value: 0, source: "x_api" },
          { metric: "replies", value: 0, source: "x_api" },
          { metric: "views", value: 1000, source: "x_api" },
        ],
      }),
    ]);
  });

  it("discovers older posts page by page within the read budget, keeping its place", async () => {
    const me = x.addAccount("many");
    const day = 86_400_000;
    for (let i = 250; i > 0; i--) x.addPost(me.id, `post ${i}`, new Date(Date.now() - i * day));
    const first = await collectX(account(me), { cursor: null, done: false }, { budget: 3, timeoutMs: 5000 });
    expect(first.reads).toBe(3);
    expect(first.posts).toHaveLength(200);
    expect(first.backfill.done).toBe(false);
    const second = await collectX(account(me), first.backfill, { budget: 3, timeoutMs: 5000 });
    expect(second.backfill).toEqual({ cursor: null, done: true });
    expect(new Set([...first.posts, ...second.posts].map((p) => p.externalId)).size).toBe(250);
  });

  it("a refused token fails the run (collectAccount records it on the coverage with its backoff)", async () => {
    const me = x.addAccount("refused");
    x.expireToken(me.token);
    await expect(collectX(account(me), { cursor: null, done: true })).rejects.toMatchObject({ info: { kind: "authentication" } });
  });
});
