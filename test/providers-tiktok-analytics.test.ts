import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectTikTok } from "../lib/platforms/tiktok/analytics";
import { accountContext } from "./peers/adapter-context";
import { startTikTokApi, type TikTokApiPeer, type TikTokUser } from "./peers/tiktok-api";

/**
 * TikTok analytics collection against the test double of TikTok's Display API (test/peers/tiktok-api.ts, written
 * from TikTok's references: TikTok cannot run here): followers from /v2/user/info/, each public video's views,
 * likes, comments and shares from /v2/video/list/, paged back by cursor while has_more.
 */

let tt: TikTokApiPeer;
beforeAll(async () => {
  tt = await startTikTokApi();
});
afterAll(async () => {
  await tt.stop();
});

const DAY_S = 86_400;
const nowS = () => Math.floor(Date.now() / 1000);

function creator(name: string): { user: TikTokUser; account: ReturnType<typeof accountContext> } {
  const { user, token } = tt.addUser(name);
  return { user, account: accountContext({ platform: "tiktok", instanceUrl: tt.url, username: user.username, credentials: { access_token: token } }) };
}

describe("TikTok analytics collector (against a test double of the Display API)", () => {
  it("reads followers and each video's views, likes, comments (replies) and shares (reposts)", async () => {
    const { user, account } = creator("metrics");
    user.followers = 1234;
    const v = tt.addVideo(user, { createTime: nowS() - 3600, title: "dance #herald", view_count: 900, like_count: 70, comment_count: 5, share_count: 3 });
    const out = await collectTikTok(account, { cursor: null, done: true });
    expect(out.error).toBeUndefined();
    expect(out.account).toEqual([{ metric: "followers", value: 1234, source: "tiktok_api" }]);
    expect(out.posts).toEqual([
      {
        externalId: v.id,
        publishedAt: new Date(v.createTime * 1000),
        excerpt: "dance #herald",
        url: `https://www.tiktok.com/@metrics/video/${v.id}`,
        readings: [
          { metric: "views", value: 900, source: "tiktok_api" },
          { metric: "likes", value: 70, source: "tiktok_api" },
          { metric: "replies", value: 5, source: "tiktok_api" },
          { metric: "reposts", value: 3, source: "tiktok_api" },
        ],
      },
    ]);
    expect(out.reads).toBe(2);
  });

  it("pages back 20 at a time by cursor while has_more, within the read budget, keeping its place", async () => {
    const { user, account } = creator("many");
    for (let i = 45; i > 0; i--) tt.addVideo(user, { createTime: nowS() - i * DAY_S, title: `video ${i}` });
    const first = await collectTikTok(account, { cursor: null, done: false }, { budget: 3, timeoutMs: 5000 });
    expect(first.error).toBeUndefined();
    expect(first.reads).toBe(3);
    expect(first.posts).toHaveLength(40);
    expect(first.backfill.done).toBe(false);
    const second = await collectTikTok(account, first.backfill, { budget: 3, timeoutMs: 5000 });
    expect(second.backfill).toEqual({ cursor: null, done: true });
    const ids = [...first.posts, ...second.posts].map((p) => p.externalId);
    expect(new Set(ids).size).toBe(45);
    // Newest first, nothing skipped at a page's edge.
    expect(first.posts.slice(0, 3).map((p) => p.excerpt)).toEqual(["video 1", "video 2", "video 3"]);
  });

  it("a malformed page ends the run as a failure, keeping what earlier pages gave", async () => {
    const { user, account } = creator("bad");
    for (let i = 25; i > 0; i--) tt.addVideo(user, { createTime: nowS() - i * DAY_S, view_count: i });
    tt.tamperNextVideoList((body) => body);
    tt.tamperNextVideoList((body) => {
      const copy = JSON.parse(JSON.stringify(body));
      copy.data.videos[0].view_count = "12";
      return copy;
    });
    const out = await collectTikTok(account, { cursor: null, done: false });
    expect(out.error?.info).toMatchObject({ code: "malformed_type", retryable: true });
    expect(out.error?.message).toContain("data.videos[0].view_count");
    expect(out.posts).toHaveLength(20);
  });

  it("an answer of 200 whose error.code is not ok is TikTok's refusal, not data", async () => {
    const { account } = creator("scoped");
    tt.tamperNextVideoList(() => ({ data: {}, error: { code: "scope_not_authorized", message: "video.list was not granted", log_id: "l" } }));
    const out = await collectTikTok(account, { cursor: null, done: true });
    expect(out.error?.info).toMatchObject({ kind: "authentication", code: "scope_not_authorized" });
    expect(out.posts).toEqual([]);
  });

  it("a refused token fails the run (collectAccount records it on the coverage with its backoff)", async () => {
    const { user, account } = creator("refused");
    tt.expireTokensOf(user);
    await expect(collectTikTok(account, { cursor: null, done: true })).rejects.toMatchObject({ info: { kind: "authentication" } });
  });
});
