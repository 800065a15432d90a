import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectFacebook } from "../lib/platforms/facebook/analytics";
import { accountContext } from "./peers/adapter-context";
import { type MetaGraphApiPeer, startMetaGraphApi } from "./peers/meta-graph-api";

/**
 * Facebook Page analytics collection against the test double of Meta's Graph API (test/peers/meta-graph-api.ts,
 * written from Meta's Page and Page Posts reference: Meta cannot run here): the Page's followers_count, and each
 * post's reactions, comments and shares from GET /{page-id}/posts, paged back by paging.cursors.after.
 */

let api: MetaGraphApiPeer;
beforeAll(async () => {
  api = await startMetaGraphApi();
});
afterAll(async () => {
  await api.stop();
});

const account = (page: { id: string; token: string }) =>
  accountContext({ platform: "facebook", instanceUrl: api.url, externalAccountId: page.id, credentials: { access_token: page.token, page_id: page.id } });

describe("Facebook Page analytics collector (against a test double of the Graph API)", () => {
  it("reads followers and each post's reactions (likes), comments (replies) and shares (reposts)", async () => {
    const { page } = api.addUser();
    api.setFollowers(page.id, 1234);
    const post = api.addPost(page.id, "Counted  post\nwith lines", new Date(Date.now() - 3_600_000), { reactions: 12, comments: 3, shares: 2 });
    const out = await collectFacebook(account(page), { cursor: null, done: true });
    expect(out.error).toBeUndefined();
    expect(out.account).toEqual([{ metric: "followers", value: 1234, source: "facebook_graph" }]);
    expect(out.posts).toEqual([
      {
        externalId: post.id,
        publishedAt: new Date(post.timestamp),
        excerpt: "Counted post with lines",
        url: post.permalink,
        readings: [
          { metric: "likes", value: 12, source: "facebook_graph" },
          { metric: "replies", value: 3, source: "facebook_graph" },
          { metric: "reposts", value: 2, source: "facebook_graph" },
        ],
      },
    ]);
  });

  it("stores a count Graph leaves out as unavailable, never zero (no shares field, no followers_count)", async () => {
    const { page } = api.addUser();
    api.addPost(page.id, "Never shared", new Date(), { reactions: 0, comments: 0 });
    const out = await collectFacebook(account(page), { cursor: null, done: true });
    expect(out.account).toEqual([{ metric: "followers", value: null, reason: "not_in_response", source: "facebook_graph" }]);
    expect(out.posts[0].readings).toEqual([
      { metric: "likes", value: 0, source: "facebook_graph" },
      { metric: "replies", value: 0, source: "facebook_graph" },
      { metric: "reposts", value: null, reason: "not_in_response", source: "facebook_graph" },
    ]);
  });

  it("discovers older posts page by page within the read budget, keeping its place", async () => {
    const { page } = api.addUser();
    const day = 86_400_000;
    for (let i = 120; i > 0; i--) api.addPost(page.id, `post ${i}`, new Date(Date.now() - i * day), { reactions: i });
    const first = await collectFacebook(account(page), { cursor: null, done: false }, { budget: 2, timeoutMs: 5000 });
    expect(first.reads).toBe(2);
    expect(first.posts).toHaveLength(50);
    expect(first.posts[0].excerpt).toBe("post 1");
    expect(first.backfill).toEqual({ cursor: expect.any(String), done: false });
    // The newest page again (its counts move most), then the two older ones from the kept position.
    const second = await collectFacebook(account(page), first.backfill, { budget: 4, timeoutMs: 5000 });
    expect(second.reads).toBe(4);
    expect(second.backfill).toEqual({ cursor: null, done: true });
    const all = new Set([...first.posts, ...second.posts].map((p) => p.externalId));
    expect(all.size).toBe(120);
  });

  it("a malformed answer ends the run as a recorded failure, keeping what was read before it", async () => {
    const { page } = api.addUser();
    api.setFollowers(page.id, 5);
    api.addPost(page.id, "fine", new Date());
    api.answerNextGet(new RegExp(`^/${page.id}/posts$`), { data: [{ id: page.id, created_time: "yesterday", message: 42 }] });
    const out = await collectFacebook(account(page), { cursor: null, done: true });
    expect(out.account).toEqual([{ metric: "followers", value: 5, source: "facebook_graph" }]);
    expect(out.posts).toEqual([]);
    expect(out.error?.info).toMatchObject({ kind: "unknown", code: expect.stringMatching(/^malformed_/) });
    api.answerNextGet(new RegExp(`^/${page.id}$`), { id: page.id, followers_count: "many" });
    await expect(collectFacebook(account(page), { cursor: null, done: true })).rejects.toMatchObject({ info: { code: "malformed_type" } });
  });

  it("a refused token fails the run (collectAccount records it on the coverage with its backoff)", async () => {
    const { user, page } = api.addUser();
    api.expireTokensOf(user.id);
    await expect(collectFacebook(account(page), { cursor: null, done: true })).rejects.toMatchObject({ info: { kind: "authentication" } });
  });
});
