import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { xAdapter } from "../lib/platforms/x/adapter";
import { matchThread, postedText } from "../lib/platforms/x/match";
import { xRetweet, xUnretweet } from "../lib/platforms/x/repost";
import { xWeightedLength } from "../lib/platforms/x/text";
import { accountContext, recordingProgress, rendition, providerFailure } from "./peers/adapter-context";
import { startMediaHost } from "./peers/stand-in-kit";
import { startXApi, type XApiPeer } from "./peers/x-api";

/**
 * The X adapter against a test double of the X API v2 written from X's public API reference (X cannot run
 * here): see test/peers/x-api.ts.
 */

let x: XApiPeer;
let media: Awaited<ReturnType<typeof startMediaHost>>;
beforeAll(async () => {
  [x, media] = await Promise.all([startXApi(), startMediaHost()]);
});
afterAll(async () => {
  await Promise.all([x.stop(), media.stop()]);
});

const account = (who: { id: string; username: string; token: string }, over = {}) =>
  accountContext({ platform: "x", instanceUrl: x.url, username: who.username, externalAccountId: who.id, credentials: { access_token: who.token }, ...over });

describe("X weighted length", () => {
  it("counts as X does: Latin 1, CJK 2, an emoji 2, a URL 23", () => {
    expect(xWeightedLength("hello")).toBe(5);
    expect(xWeightedLength("日本語")).toBe(6);
    expect(xWeightedLength("👍🏽")).toBe(2);
    expect(xWeightedLength("👨‍👩‍👧‍👦")).toBe(2);
    expect(xWeightedLength("see https://example.com/a/very/long/path/indeed?q=1")).toBe(4 + 23);
    expect(xWeightedLength("example.com")).toBe(23);
    expect(xWeightedLength("“quoted” – dash")).toBe(15);
    expect(xWeightedLength("é")).toBe(1); // e + combining accent, NFC-normalised to one code point
  });

  it("a URL weighs 23 whatever its length; text around it adds its own weight", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,200}$/), fc.stringMatching(/^[a-z ]{0,50}$/), (path, text) => {
        expect(xWeightedLength(`${text} https://example.org/${path}`)).toBe(xWeightedLength(text) + 1 + 23);
      }),
    );
  });

  it("is additive over whitespace-separated pieces, as the segment packer needs", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 40 }), (a, b) => {
        expect(xWeightedLength(`${a} ${b}`)).toBeLessThanOrEqual(xWeightedLength(a) + 1 + xWeightedLength(b));
      }),
    );
  });

  it("every character weighs 1 or 2", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }), (s) => {
        const n = xWeightedLength(s);
        expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(2 * [...s.normalize("NFC")].length + 23);
      }),
    );
  });
});

describe("X reconciliation matching", () => {
  it("expands wrapped links and X's HTML entities before comparing", () => {
    const tweet = {
      id: "1",
      text: "a &amp; b &lt;3 https://t.co/x",
      entities: { urls: [{ url: "https://t.co/x", expanded_url: "https://example.com/?a=1&b=2" }] },
    };
    expect(postedText(tweet)).toBe("a & b <3 https://example.com/?a=1&b=2");
  });

  it("takes only the opening run whose reply chain holds", () => {
    const tweets = [
      { id: "3", text: "three", referenced_tweets: [{ type: "replied_to", id: "9" }] },
      { id: "2", text: "two", referenced_tweets: [{ type: "replied_to", id: "1" }] },
      { id: "1", text: "one" },
    ];
    expect(matchThread(tweets, ["one", "two", "three"])).toEqual(["1", "2"]);
    expect(matchThread(tweets, ["two"])).toEqual([]);
  });
});

describe("X adapter (against a test double of the X API v2)", () => {
  it("publishes one post and reads the profile", async () => {
    const me = x.addAccount("alice");
    const result = await xAdapter.publish(account(me), rendition(["hello X"]), recordingProgress());
    const [post] = x.postsOf(me.id);
    expect(post.posted).toBe("hello X");
    expect(result).toEqual({ external_id: post.id, external_url: `https://x.com/alice/status/${post.id}` });
    expect(await xAdapter.readProfile(account(me))).toMatchObject({ username: "alice", external_account_id: me.id, text_limit: 280 });
  });

  it("publishes a thread as replies, recording each post before the next", async () => {
    const me = x.addAccount("bob");
    const progress = recordingProgress();
    await xAdapter.publish(account(me), rendition(["one", "two", "three"]), progress);
    const [a, b, c] = x.postsOf(me.id);
    expect([a.inReplyTo, b.inReplyTo, c.inReplyTo]).toEqual([null, a.id, b.id]);
    expect(progress.calls.map(([p, ref]) => [p, ref.id])).toEqual([
      [0, a.id],
      [1, b.id],
      [2, c.id],
    ]);
  });

  it("uploads an image with its alt text and attaches it", async () => {
    const me = x.addAccount("carol");
    const r = rendition(["with a picture"]);
    r.segments[0].media = [media.image("one.png", "A red dot")];
    await xAdapter.publish(account(me), r, recordingProgress());
    const [post] = x.postsOf(me.id);
    expect(post.mediaIds).toHaveLength(1);
    expect(x.media.get(post.mediaIds[0])).toMatchObject({ mime: "image/png", alt: "A red dot" });
  });

  it("refuses a segment over 280 weighted characters before sending anything", async () => {
    const me = x.addAccount("dave");
    const err = await providerFailure(xAdapter.publish(account(me), rendition(["fine", "日".repeat(141)]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "validation", code: "text_too_long", retryable: false });
    expect(x.postsOf(me.id)).toHaveLength(0);
  });

  it("401 for an expired token → authentication, not retryable", async () => {
    const me = x.addAccount("erin");
    x.expireToken(me.token);
    const err = await providerFailure(xAdapter.publish(account(me), rendition(["nope"]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "authentication", httpStatus: 401, retryable: false });
  });

  it("429 → rate_limited with retryAt at X's x-rate-limit-reset", async () => {
    const me = x.addAccount("frank");
    const reset = new Date(Math.floor(Date.now() / 1000 + 900) * 1000);
    x.rateLimitNext(1, reset);
    const err = await providerFailure(xAdapter.publish(account(me), rendition(["later"]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryable: true });
    expect(err.info.retryAt?.toISOString()).toBe(reset.toISOString());
  });

  it("5xx → retryable; then one post", async () => {
    const me = x.addAccount("gina");
    x.failNext(1, 503);
    const r = rendition(["flaky"]);
    expect((await providerFailure(xAdapter.publish(account(me), r, recordingProgress()))).info).toMatchObject({ kind: "unavailable", retryable: true });
    await xAdapter.publish(account(me), r, recordingProgress());
    expect(x.postsOf(me.id)).toHaveLength(1);
  });

  it("a timeout after X stored the post → outcome unknown; reconcile finds it and the retry posts only the rest", async () => {
    const me = x.addAccount("hank");
    const r = rendition(["first https://example.com/a?b=1&c=2 <ok>", "second"]);
    x.hangNext(1);
    // X stores the post and never answers: the adapter's own timeout (15 s) ends the call.
    const err = await providerFailure(xAdapter.publish(account(me), r, recordingProgress()));
    expect(err.info).toMatchObject({ code: "timeout", retryable: true, outcomeUnknown: true });
    expect(x.postsOf(me.id)).toHaveLength(1);
    const found = await xAdapter.reconcile(account(me), r);
    expect([...found.keys()]).toEqual([0]);
    expect(found.get(0)!.id).toBe(x.postsOf(me.id)[0].id);
    await xAdapter.publish(account(me), r, recordingProgress(found));
    const [a, b] = x.postsOf(me.id);
    expect(x.postsOf(me.id)).toHaveLength(2);
    expect(b.inReplyTo).toBe(a.id);
  }, 40_000);

  it("a repeat of an already-posted segment that X refuses as a duplicate counts as posted (no second post)", async () => {
    const me = x.addAccount("ivy");
    const r = rendition(["only once", "and a reply"]);
    const first = recordingProgress();
    await xAdapter.publish(account(me), r, first);
    const again = recordingProgress();
    await xAdapter.publish(account(me), r, again);
    expect(x.postsOf(me.id)).toHaveLength(2);
    expect(again.calls.map(([, ref]) => ref.id)).toEqual(first.calls.map(([, ref]) => ref.id));
  });

  it("refuses video before uploading anything", async () => {
    const me = x.addAccount("jack");
    const r = rendition(["video"]);
    r.segments[0].media = [{ url: `${media.url}/v.mp4`, mime_type: "video/mp4", alt_text: null }];
    expect((await providerFailure(xAdapter.publish(account(me), r, recordingProgress()))).info).toMatchObject({ code: "media_unsupported" });
  });

  it("retweets once however often asked (X ignores a duplicate), and undoes it", async () => {
    const author = x.addAccount("kim");
    const fan = x.addAccount("lee");
    await xAdapter.publish(account(author), rendition(["retweet me"]), recordingProgress());
    const [post] = x.postsOf(author.id);
    expect(await xRetweet(account(fan), post.id)).toBe(post.id);
    expect(await xRetweet(account(fan), post.id)).toBe(post.id);
    expect(x.retweets.filter((r) => r.tweetId === post.id)).toEqual([{ userId: fan.id, tweetId: post.id }]);
    await xUnretweet(account(fan), post.id);
    await xUnretweet(account(fan), post.id);
    expect(x.retweets.filter((r) => r.tweetId === post.id)).toEqual([]);
  });
});
