import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { threadsAdapter } from "../lib/platforms/threads/adapter";
import { regainAccessAt } from "../lib/platforms/threads/api";
import { containerPlan } from "../lib/platforms/threads/body";
import { threadsRepost, threadsUnrepostUnavailable } from "../lib/platforms/threads/repost";
import { threadsLength } from "../lib/platforms/threads/text";
import { ProviderError } from "../lib/providers/types";
import { accountContext, recordingProgress, rendition, providerFailure } from "./peers/adapter-context";
import { ONE_PIXEL_PNG, startMediaHost } from "./peers/stand-in-kit";
import { startThreadsApi, type ThreadsApiPeer } from "./peers/threads-api";

/**
 * The Threads adapter against a test double of the Threads API written from Meta's public Threads API
 * reference (Threads cannot run here): see test/peers/threads-api.ts.
 */

let api: ThreadsApiPeer;
let media: Awaited<ReturnType<typeof startMediaHost>>;
beforeAll(async () => {
  [api, media] = await Promise.all([startThreadsApi(), startMediaHost()]);
});
afterAll(async () => {
  await Promise.all([api.stop(), media.stop()]);
});

const account = (who: { id: string; username: string; token: string }, over = {}) =>
  accountContext({
    platform: "threads",
    instanceUrl: api.url,
    username: who.username,
    externalAccountId: who.id,
    credentials: { access_token: who.token },
    ...over,
  });

describe("Threads text and containers (pure)", () => {
  it("counts characters as 1 and an emoji as its UTF-8 bytes", () => {
    expect(threadsLength("hello")).toBe(5);
    expect(threadsLength("日本")).toBe(2);
    expect(threadsLength("👍")).toBe(4);
    expect(threadsLength("👍🏽")).toBe(8);
    fc.assert(fc.property(fc.stringMatching(/^[\x20-\x7e]{0,600}$/), (s) => threadsLength(s) === s.length));
  });

  it("plans TEXT, IMAGE and CAROUSEL containers, the reply on the published one", () => {
    const img = (n: number) => ({ url: `https://h.example/${n}.png`, mime_type: "image/png", alt_text: n % 2 ? `alt ${n}` : null });
    expect(containerPlan("hi", [], null)).toEqual({ items: [], main: { media_type: "TEXT", text: "hi" } });
    expect(containerPlan("hi", [img(1)], "p1")).toEqual({
      items: [],
      main: { media_type: "IMAGE", image_url: "https://h.example/1.png", text: "hi", reply_to_id: "p1", alt_text: "alt 1" },
    });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 20 }), fc.option(fc.constant("p9"), { nil: null }), (n, replyTo) => {
        const plan = containerPlan(
          "t",
          Array.from({ length: n }, (_, i) => img(i)),
          replyTo,
        );
        expect(plan.items).toHaveLength(n);
        expect(plan.items.every((i) => i.is_carousel_item === "true" && i.reply_to_id === undefined)).toBe(true);
        expect(plan.main.media_type).toBe("CAROUSEL");
        expect(plan.main.reply_to_id).toBe(replyTo ?? undefined);
      }),
    );
    expect(() => containerPlan("t", [{ url: "u", mime_type: "video/mp4", alt_text: null }], null)).toThrow(ProviderError);
  });

  it("reads Graph's estimated_time_to_regain_access (minutes)", () => {
    const headers = new Headers({ "x-business-use-case-usage": JSON.stringify({ "1": [{ type: "threads", estimated_time_to_regain_access: 7 }] }) });
    expect(regainAccessAt(headers, 0)?.getTime()).toBe(7 * 60_000);
    expect(regainAccessAt(new Headers(), 0)).toBeUndefined();
  });
});

describe("Threads adapter (against a test double of the Threads API)", () => {
  it("publishes one post (container then publish) and reads the profile", async () => {
    const me = api.addAccount("alice");
    const result = await threadsAdapter.publish(account(me), rendition(["hello Threads"]), recordingProgress());
    const [post] = api.postsOf(me.id);
    expect(post.text).toBe("hello Threads");
    expect(result).toEqual({ external_id: post.id, external_url: post.permalink });
    expect(await threadsAdapter.readProfile(account(me))).toMatchObject({ username: "alice", external_account_id: me.id, text_limit: 500 });
  });

  it("publishes a thread through reply_to_id", async () => {
    const me = api.addAccount("bob");
    const progress = recordingProgress();
    await threadsAdapter.publish(account(me), rendition(["one", "two", "three"]), progress);
    const [a, b, c] = api.postsOf(me.id);
    expect([a.replyTo, b.replyTo, c.replyTo]).toEqual([null, a.id, b.id]);
    expect(progress.calls.map(([p, ref]) => [p, ref.id])).toEqual([
      [0, a.id],
      [1, b.id],
      [2, c.id],
    ]);
  });

  it("an image goes by URL with its alt text; two images become a carousel", async () => {
    const me = api.addAccount("carol");
    const r = rendition(["one image", "two images"]);
    r.segments[0].media = [media.image("a.png", "A red dot")];
    r.segments[1].media = [media.image("b.png", "B"), media.image("c.png", null)];
    await threadsAdapter.publish(account(me), r, recordingProgress());
    const [a, b] = api.postsOf(me.id);
    expect(a.images.map((i) => [Buffer.from(i.bytes).equals(ONE_PIXEL_PNG), i.alt])).toEqual([[true, "A red dot"]]);
    expect(b.images.map((i) => i.alt)).toEqual(["B", null]);
  });

  it("refuses a segment over 500 before sending anything", async () => {
    const me = api.addAccount("dave");
    const err = await providerFailure(threadsAdapter.publish(account(me), rendition(["fine", "👍".repeat(126)]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "validation", code: "text_too_long" });
    expect(api.postsOf(me.id)).toHaveLength(0);
  });

  it("an expired token (Graph code 190) → authentication", async () => {
    const me = api.addAccount("erin");
    api.expireToken(me.token);
    expect((await providerFailure(threadsAdapter.publish(account(me), rendition(["x"]), recordingProgress()))).info).toMatchObject({
      kind: "authentication",
      httpStatus: 401,
      retryable: false,
    });
  });

  it("a rate limit → rate_limited, retryAt from estimated_time_to_regain_access", async () => {
    const me = api.addAccount("frank");
    const reset = new Date(Date.now() + 10 * 60_000);
    api.rateLimitNext(1, reset);
    const before = Date.now();
    const err = await providerFailure(threadsAdapter.publish(account(me), rendition(["later"]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "rate_limited", retryable: true });
    expect(Math.abs(err.info.retryAt!.getTime() - (before + 10 * 60_000))).toBeLessThan(5_000);
  });

  it("a timeout after Threads published → outcome unknown; reconcile finds it; the retry posts only the rest", async () => {
    const me = api.addAccount("gina");
    const r = rendition(["first", "second", "third"]);
    const progress = recordingProgress();
    await threadsAdapter.publish(account(me), { ...r, segments: r.segments.slice(0, 1) }, progress);
    api.hangNext(1);
    const err = await providerFailure(threadsAdapter.publish(account(me), r, progress));
    expect(err.info).toMatchObject({ code: "timeout", outcomeUnknown: true });
    expect(api.postsOf(me.id)).toHaveLength(2);
    const found = await threadsAdapter.reconcile(account(me), r);
    expect([...found.keys()]).toEqual([0, 1]);
    await threadsAdapter.publish(account(me), r, recordingProgress(found));
    const [a, b, c] = api.postsOf(me.id);
    expect(api.postsOf(me.id)).toHaveLength(3);
    expect([b.replyTo, c.replyTo]).toEqual([a.id, b.id]);
  }, 40_000);

  it("reposts once however often asked (an existing REPOST_FACADE is found first); undoing is refused, saying why", async () => {
    const author = api.addAccount("kim");
    const fan = api.addAccount("lee");
    await threadsAdapter.publish(account(author), rendition(["repost me"]), recordingProgress());
    const [post] = api.postsOf(author.id);
    const first = await threadsRepost(account(fan), post.id);
    expect(await threadsRepost(account(fan), post.id)).toBe(first);
    expect(api.reposts.filter((r) => r.mediaId === post.id).map((r) => r.id)).toEqual([first]);
    // The facade among the fan's threads does not disturb reconciliation of the fan's own posts.
    expect(await threadsAdapter.reconcile(account(fan), rendition(["repost me"]))).toEqual(new Map());
    expect(() => threadsUnrepostUnavailable()).toThrow(expect.objectContaining({ info: expect.objectContaining({ code: "unrepost_not_supported" }) }));
  });
});
