import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectYouTube, youtubeCountOf } from "../lib/platforms/youtube/analytics";
import { accountContext } from "./peers/adapter-context";
import { startYouTubeApi, type Channel, type YouTubeApiPeer } from "./peers/youtube-api";

/**
 * YouTube analytics collection against the test double of the YouTube Data API v3 (test/peers/youtube-api.ts,
 * written from Google's reference: YouTube cannot run here): subscribers from channels.list, the channel's videos
 * from its uploads playlist (playlistItems.list, 50 a page) and their views, likes and comments from videos.list.
 */

let yt: YouTubeApiPeer;
beforeAll(async () => {
  yt = await startYouTubeApi();
});
afterAll(async () => {
  await yt.stop();
});

const account = (who: { channel: Channel; token: string }) =>
  accountContext({
    platform: "youtube",
    instanceUrl: yt.url,
    username: who.channel.title,
    externalAccountId: who.channel.id,
    credentials: { access_token: who.token },
  });
const LIMITS = { budget: 7, timeoutMs: 5000 };
const day = 86_400_000;

describe("YouTube analytics collector (against a test double of the YouTube Data API v3)", () => {
  it("reads subscribers and each video's views, likes and comments (counts come as decimal strings)", async () => {
    const me = yt.addChannel("metrics");
    yt.setSubscribers(me.channel, 1234);
    const v = yt.addVideo(me.channel, "counted", new Date(Date.now() - day), { viewCount: 1000, likeCount: 7, commentCount: 3 });
    const out = await collectYouTube(account(me), { cursor: null, done: true }, LIMITS);
    expect(out.error).toBeUndefined();
    expect(out.account).toEqual([{ metric: "followers", value: 1234, source: "youtube_api" }]);
    expect(out.posts).toEqual([
      {
        externalId: v.id,
        publishedAt: v.publishedAt,
        excerpt: "counted",
        url: `https://www.youtube.com/watch?v=${v.id}`,
        readings: [
          { metric: "views", value: 1000, source: "youtube_api" },
          { metric: "likes", value: 7, source: "youtube_api" },
          { metric: "replies", value: 3, source: "youtube_api" },
        ],
      },
    ]);
    // One channel read, one playlist page, one videos.list of its ids.
    expect(out.reads).toBe(3);
  });

  it("a hidden subscriber count and counts YouTube leaves out are unavailable, never zero", async () => {
    const me = yt.addChannel("hidden");
    yt.setSubscribers(me.channel, null);
    yt.addVideo(me.channel, "likes hidden", new Date(), { viewCount: 5, commentCount: 0 });
    const out = await collectYouTube(account(me), { cursor: null, done: true }, LIMITS);
    expect(out.error).toBeUndefined();
    expect(out.account).toEqual([{ metric: "followers", value: null, reason: "hidden_by_channel", source: "youtube_api" }]);
    expect(out.posts[0].readings).toEqual([
      { metric: "views", value: 5, source: "youtube_api" },
      { metric: "likes", value: null, reason: "not_in_response", source: "youtube_api" },
      { metric: "replies", value: 0, source: "youtube_api" },
    ]);
  });

  it("discovers older videos page by page (50 a page, two reads each) within the read budget, keeping its place", async () => {
    const me = yt.addChannel("many");
    for (let i = 120; i > 0; i--) yt.addVideo(me.channel, `video ${i}`, new Date(Date.now() - i * day), { viewCount: i });
    const first = await collectYouTube(account(me), { cursor: null, done: false }, { budget: 5, timeoutMs: 5000 });
    expect(first.error).toBeUndefined();
    expect(first.reads).toBe(5);
    expect(first.posts).toHaveLength(100);
    expect(first.backfill).toEqual({ cursor: expect.any(String), done: false });
    const second = await collectYouTube(account(me), first.backfill, { budget: 5, timeoutMs: 5000 });
    expect(second.backfill).toEqual({ cursor: null, done: true });
    const all = [...first.posts, ...second.posts];
    expect(new Set(all.map((p) => p.externalId)).size).toBe(120);
    expect(all.find((p) => p.excerpt === "video 120")?.readings[0]).toEqual({ metric: "views", value: 120, source: "youtube_api" });
  });

  it("a bad answer ends the run as a recorded failure, keeping what earlier pages gave and where it stopped", async () => {
    const me = yt.addChannel("bad");
    for (let i = 60; i > 0; i--) yt.addVideo(me.channel, `video ${i}`, new Date(Date.now() - i * day));
    // The first page's statistics malformed: nothing of that page is kept.
    yt.badAnswerNext("/youtube/v3/videos");
    const none = await collectYouTube(account(me), { cursor: null, done: false }, LIMITS);
    expect(none.error?.info).toMatchObject({ code: "malformed_type" });
    expect(none.error?.message).toContain("GET /youtube/v3/videos: items");
    expect(none.posts).toEqual([]);
    // The second playlist page malformed: the first page's 50 videos are kept, and the next run starts at the second.
    yt.badAnswerNext("/youtube/v3/playlistItems", 1);
    const partly = await collectYouTube(account(me), { cursor: null, done: false }, LIMITS);
    expect(partly.error?.info).toMatchObject({ code: "malformed_type" });
    expect(partly.posts).toHaveLength(50);
    expect(partly.backfill).toEqual({ cursor: expect.any(String), done: false });
    const rest = await collectYouTube(account(me), partly.backfill, LIMITS);
    expect(rest.error).toBeUndefined();
    expect(rest.backfill).toEqual({ cursor: null, done: true });
    expect(new Set([...partly.posts, ...rest.posts].map((p) => p.externalId)).size).toBe(60);
  });

  it("a channel without an uploads playlist yet (404 playlistNotFound) has no videos, not a failure", async () => {
    const me = yt.addChannel("empty");
    me.channel.noUploadsPlaylist = true;
    const out = await collectYouTube(account(me), { cursor: null, done: false }, LIMITS);
    expect(out.error).toBeUndefined();
    expect(out.posts).toEqual([]);
    expect(out.backfill).toEqual({ cursor: null, done: true });
  });

  it("a channel answer that is not the documented shape fails the run before anything is kept", async () => {
    const me = yt.addChannel("badchannel");
    yt.badAnswerNext("/youtube/v3/channels");
    await expect(collectYouTube(account(me), { cursor: null, done: true }, LIMITS)).rejects.toMatchObject({ info: { code: "malformed_type" } });
  });

  it("a refused token fails the run (collectAccount records it on the coverage with its backoff)", async () => {
    const me = yt.addChannel("refused");
    yt.expireTokensOf(me.channel);
    await expect(collectYouTube(account(me), { cursor: null, done: true }, LIMITS)).rejects.toMatchObject({ info: { kind: "authentication" } });
  });

  it("counts: decimal strings of safe integers; anything else is malformed", () => {
    expect(youtubeCountOf("0", "c")).toBe(0);
    expect(youtubeCountOf("9007199254740991", "c")).toBe(9007199254740991);
    expect(youtubeCountOf(undefined, "c")).toBeUndefined();
    for (const bad of ["-1", "1.5", "", "12a", "99999999999999999", -1, 1.5, true, {}])
      expect(() => youtubeCountOf(bad, "c"), String(bad)).toThrow(/not a count/);
  });
});
