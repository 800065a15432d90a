import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectInstagram } from "../lib/platforms/instagram/analytics";
import { accountContext } from "./peers/adapter-context";
import { type MetaGraphApiPeer, startMetaGraphApi } from "./peers/meta-graph-api";

/**
 * Instagram analytics collection against the test double of Meta's Graph API (test/peers/meta-graph-api.ts,
 * written from Meta's IG User, IG User Media and IG Media Insights reference: Instagram cannot run here):
 * followers_count, each media's like_count and comments_count, and its views and reach from media insights (one
 * read per media), paged back by paging.cursors.after within the run's read budget.
 */

let api: MetaGraphApiPeer;
beforeAll(async () => {
  api = await startMetaGraphApi();
});
afterAll(async () => {
  await api.stop();
});

const igAccount = (page: { id: string; token: string; ig: { id: string } | null }) =>
  accountContext({ platform: "instagram", instanceUrl: api.url, externalAccountId: page.ig!.id, credentials: { access_token: page.token, page_id: page.id } });

describe("Instagram analytics collector (against a test double of the Graph API)", () => {
  it("reads followers, each media's likes and comments, and its views and reach from insights", async () => {
    const { page } = api.addUser({ instagram: true });
    api.setFollowers(page.ig!.id, 321);
    const media = api.addPost(page.ig!.id, "A caption #tag", new Date(Date.now() - 7_200_000), {
      likes: 40,
      comments: 4,
      insights: { views: 900, reach: 700 },
    });
    const out = await collectInstagram(igAccount(page), { cursor: null, done: true });
    expect(out.error).toBeUndefined();
    expect(out.reads).toBe(3);
    expect(out.account).toEqual([{ metric: "followers", value: 321, source: "instagram_graph" }]);
    expect(out.posts).toEqual([
      {
        externalId: media.id,
        publishedAt: new Date(media.timestamp),
        excerpt: "A caption #tag",
        url: media.permalink,
        readings: [
          { metric: "likes", value: 40, source: "instagram_graph" },
          { metric: "replies", value: 4, source: "instagram_graph" },
          { metric: "views", value: 900, source: "instagram_graph" },
          { metric: "reach", value: 700, source: "instagram_graph" },
        ],
      },
    ]);
  });

  it("what Instagram withholds is unavailable, never zero: hidden likes, an empty insights set, too few viewers (code 10)", async () => {
    const { page } = api.addUser({ instagram: true });
    const hidden = api.addPost(page.ig!.id, "likes hidden, no insights yet", new Date(Date.now() - 60_000), { comments: 1, insights: {} });
    const few = api.addPost(page.ig!.id, "seen by few", new Date(Date.now() - 120_000), { likes: 2, insights: "not_enough_viewers" });
    const out = await collectInstagram(igAccount(page), { cursor: null, done: true });
    expect(out.error).toBeUndefined();
    const readings = (id: string) => out.posts.find((p) => p.externalId === id)?.readings;
    expect(readings(hidden.id)).toEqual([
      { metric: "likes", value: null, reason: "not_in_response", source: "instagram_graph" },
      { metric: "replies", value: 1, source: "instagram_graph" },
      { metric: "views", value: null, reason: "not_in_response", source: "instagram_graph" },
      { metric: "reach", value: null, reason: "not_in_response", source: "instagram_graph" },
    ]);
    expect(readings(few.id)).toEqual([
      { metric: "likes", value: 2, source: "instagram_graph" },
      { metric: "replies", value: 0, source: "instagram_graph" },
      { metric: "views", value: null, reason: "too_few_viewers", source: "instagram_graph" },
      { metric: "reach", value: null, reason: "too_few_viewers", source: "instagram_graph" },
    ]);
  });

  it("sizes each page to the read budget (one insights read per media) and goes on from the kept position", async () => {
    const { page } = api.addUser({ instagram: true });
    const day = 86_400_000;
    for (let i = 30; i > 0; i--) api.addPost(page.ig!.id, `media ${i}`, new Date(Date.now() - i * day), { likes: i, insights: { views: i * 10 } });
    // 1 account read + 1 page + 8 insights = 10.
    const first = await collectInstagram(igAccount(page), { cursor: null, done: false }, { budget: 10, timeoutMs: 5000 });
    expect(first.reads).toBe(10);
    expect(first.posts.map((p) => p.excerpt)).toEqual(Array.from({ length: 8 }, (_, i) => `media ${i + 1}`));
    expect(first.backfill).toEqual({ cursor: expect.any(String), done: false });
    // The newest page again (25 media, their counts move most), then the older ones from the kept position.
    const second = await collectInstagram(igAccount(page), first.backfill, { budget: 60, timeoutMs: 5000 });
    expect(second.reads).toBe(1 + 1 + 25 + 1 + 22);
    expect(second.backfill).toEqual({ cursor: null, done: true });
    expect(new Set([...first.posts, ...second.posts].map((p) => p.externalId)).size).toBe(30);
  });

  it("a malformed answer ends the run as a recorded failure, keeping what was read before it", async () => {
    const { page } = api.addUser({ instagram: true });
    api.setFollowers(page.ig!.id, 9);
    const media = api.addPost(page.ig!.id, "counted", new Date(), { likes: 1, insights: { views: 5, reach: 4 } });
    api.answerNextGet(new RegExp(`^/${media.id}/insights$`), { data: [{ name: "views", period: "lifetime", values: [{ value: -3 }] }] });
    const out = await collectInstagram(igAccount(page), { cursor: null, done: true });
    expect(out.account).toEqual([{ metric: "followers", value: 9, source: "instagram_graph" }]);
    expect(out.posts).toEqual([]);
    expect(out.error?.info).toMatchObject({ kind: "unknown", code: "malformed_type" });
  });

  it("without instagram_manage_insights (Graph's code 10, permission) the run fails rather than storing media as seen by too few", async () => {
    const { page } = api.addUser({ instagram: true });
    api.addPost(page.ig!.id, "needs the permission", new Date(), { likes: 1, insights: { views: 5 } });
    api.refuseInsights(page.id);
    const out = await collectInstagram(igAccount(page), { cursor: null, done: true });
    expect(out.posts).toEqual([]);
    expect(out.error?.info).toMatchObject({ code: "graph_10", retryable: false });
  });

  it("a refused token fails the run", async () => {
    const { user, page } = api.addUser({ instagram: true });
    api.expireTokensOf(user.id);
    await expect(collectInstagram(igAccount(page), { cursor: null, done: true })).rejects.toMatchObject({ info: { kind: "authentication" } });
  });
});
