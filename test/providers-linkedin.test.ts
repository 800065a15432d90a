import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkedinAdapter } from "../lib/platforms/linkedin/adapter";
import { nextMidnightUtc } from "../lib/platforms/linkedin/api";
import { postBody } from "../lib/platforms/linkedin/body";
import { escapeLittleText, unescapeLittleText } from "../lib/platforms/linkedin/text";
import { joinedText } from "../lib/providers/text";
import { segmentLimit } from "../lib/publishing/limits";
import { planRenditions } from "../lib/publishing/plan";
import { accountContext, recordingProgress, rendition, providerFailure } from "./peers/adapter-context";
import { type LinkedInApiPeer, startLinkedInApi } from "./peers/linkedin-api";
import { ONE_PIXEL_PNG, startMediaHost } from "./peers/stand-in-kit";

/**
 * The LinkedIn adapter against a test double of LinkedIn's Posts, Images and userinfo APIs written from
 * LinkedIn's public API reference (LinkedIn cannot run here): see test/peers/linkedin-api.ts.
 */

let api: LinkedInApiPeer;
let media: Awaited<ReturnType<typeof startMediaHost>>;
beforeAll(async () => {
  [api, media] = await Promise.all([startLinkedInApi(), startMediaHost()]);
});
afterAll(async () => {
  await Promise.all([api.stop(), media.stop()]);
});

const account = (who: { id: string; username: string; token: string }, over = {}) =>
  accountContext({
    platform: "linkedin",
    instanceUrl: api.url,
    username: who.username,
    externalAccountId: who.id,
    credentials: { access_token: who.token },
    ...over,
  });

describe("LinkedIn post body (pure)", () => {
  it("escapes little text's reserved characters, and unescaping gives the text back", () => {
    expect(escapeLittleText("C# (and F#) @ 100% _really_ [sic] <3 ~ {x} | \\")).toBe(
      "C\\# \\(and F\\#\\) \\@ 100% \\_really\\_ \\[sic\\] \\<3 \\~ \\{x\\} \\| \\\\",
    );
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => unescapeLittleText(escapeLittleText(s)) === s));
  });

  it("joins segments in order with a blank line, each with its URL", () => {
    expect(
      joinedText([
        { position: 1, body: "second", url: null },
        { position: 0, body: "first", url: "https://example.com/a" },
      ]),
    ).toBe("first\n\nhttps://example.com/a\n\nsecond");
  });

  it("one image as content.media with altText, several as multiImage", () => {
    const one = postBody("urn:li:person:1", "hi (there)", [{ urn: "urn:li:image:1", altText: "dot" }]);
    expect(one).toMatchObject({ author: "urn:li:person:1", commentary: "hi \\(there\\)", visibility: "PUBLIC", lifecycleState: "PUBLISHED" });
    expect(one.content).toEqual({ media: { id: "urn:li:image:1", altText: "dot" } });
    const two = postBody("urn:li:person:1", "x", [
      { urn: "urn:li:image:1", altText: null },
      { urn: "urn:li:image:2", altText: "b" },
    ]);
    expect(two.content).toEqual({ multiImage: { images: [{ id: "urn:li:image:1" }, { id: "urn:li:image:2", altText: "b" }] } });
    expect(postBody("urn:li:person:1", "x", [])).not.toHaveProperty("content");
  });

  it("a 429 without Retry-After waits for midnight UTC, when LinkedIn's daily limits reset", () => {
    expect(nextMidnightUtc(new Date("2026-11-26T13:00:00Z")).toISOString()).toBe("2026-11-27T00:00:00.000Z");
  });
});

describe("LinkedIn at creation: no threads, segments joined into one post (pure planning)", () => {
  const accounts = new Map([["acc_li", { platform: "linkedin" as const, limit: segmentLimit("linkedin") }]]);
  const plan = (dest: Parameters<typeof planRenditions>[0]["destinations"][number], sourceText = "") =>
    planRenditions({ title: null, sourceText, destinations: [dest] }, accounts);

  it("segments whose joined text fits 3,000 characters are accepted", () => {
    expect(plan({ social_account_id: "acc_li", segments: [{ body: "a".repeat(1500) }, { body: "b".repeat(1498) }] }).problems).toEqual([]);
  });

  it("segments joined over 3,000 characters are refused, naming the destination", () => {
    expect(plan({ social_account_id: "acc_li", segments: [{ body: "a".repeat(1500) }, { body: "b".repeat(1499) }] }).problems).toEqual([
      { index: 0, field: "segments", message: expect.stringContaining("linkedin has no threads") },
    ]);
  });

  it("a text over 3,000 characters (which would be split into a thread) is refused on the destination", () => {
    expect(plan({ social_account_id: "acc_li" }, "word ".repeat(700)).problems).toEqual([
      { index: 0, field: "body", message: expect.stringContaining("3000") },
    ]);
    expect(plan({ social_account_id: "acc_li" }, "word ".repeat(500)).plans[0].segments).toHaveLength(1);
  });
});

describe("LinkedIn adapter (against a test double of LinkedIn's API)", () => {
  it("publishes one post with the version headers and reads the profile", async () => {
    const me = api.addAccount("Ada Lovelace");
    const result = await linkedinAdapter.publish(account(me), rendition(["Hello #LinkedIn (really) @ 9am"]), recordingProgress());
    const [post] = api.postsOf(me.id);
    expect(post.text).toBe("Hello #LinkedIn (really) @ 9am");
    expect(result).toEqual({ external_id: post.urn, external_url: `https://www.linkedin.com/feed/update/${post.urn}/` });
    expect(api.postRequests.at(-1)!.headers).toMatchObject({ "linkedin-version": expect.stringMatching(/^\d{6}$/), "x-restli-protocol-version": "2.0.0" });
    expect(await linkedinAdapter.readProfile(account(me))).toMatchObject({ username: "Ada Lovelace", external_account_id: me.id, text_limit: 3000 });
  });

  it("a thread becomes one post; every segment records it", async () => {
    const me = api.addAccount("Bo");
    const progress = recordingProgress();
    await linkedinAdapter.publish(account(me), rendition(["one", "two", "three"]), progress);
    const posts = api.postsOf(me.id);
    expect(posts.map((p) => p.text)).toEqual(["one\n\ntwo\n\nthree"]);
    expect(progress.calls.map(([p, ref]) => [p, ref.id])).toEqual([
      [0, posts[0].urn],
      [1, posts[0].urn],
      [2, posts[0].urn],
    ]);
  });

  it("uploads an image (initializeUpload, PUT) and posts it with its alt text", async () => {
    const me = api.addAccount("Cy");
    const r = rendition(["with a picture"]);
    r.segments[0].media = [media.image("a.png", "A red dot")];
    await linkedinAdapter.publish(account(me), r, recordingProgress());
    const [post] = api.postsOf(me.id);
    expect(post.images.map((i) => [Buffer.from(i.bytes).equals(ONE_PIXEL_PNG), i.altText])).toEqual([[true, "A red dot"]]);
  });

  it("refuses a joined text over 3,000 characters before sending anything", async () => {
    const me = api.addAccount("Di");
    const err = await providerFailure(linkedinAdapter.publish(account(me), rendition(["a".repeat(2000), "b".repeat(1000)]), recordingProgress()));
    expect(err.info).toMatchObject({ kind: "validation", code: "text_too_long" });
    expect(api.postsOf(me.id)).toHaveLength(0);
  });

  it("401 → authentication; 429 → rate_limited at the Retry-After", async () => {
    const me = api.addAccount("Ed");
    const reset = new Date(Date.now() + 120_000);
    api.rateLimitNext(1, reset);
    const limited = await providerFailure(linkedinAdapter.publish(account(me), rendition(["later"]), recordingProgress()));
    expect(limited.info).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryable: true });
    expect(Math.abs(limited.info.retryAt!.getTime() - reset.getTime())).toBeLessThan(2_000);
    api.expireToken(me.token);
    expect((await providerFailure(linkedinAdapter.publish(account(me), rendition(["nope"]), recordingProgress()))).info).toMatchObject({
      kind: "authentication",
      httpStatus: 401,
      retryable: false,
    });
  });

  it("a timeout after LinkedIn stored the post → outcome unknown; reconcile finds it; the retry posts nothing", async () => {
    const me = api.addAccount("Flo");
    const r = rendition(["first (with markup) #tag", "second"]);
    api.hangNext(1);
    const err = await providerFailure(linkedinAdapter.publish(account(me), r, recordingProgress()));
    expect(err.info).toMatchObject({ code: "timeout", outcomeUnknown: true });
    const found = await linkedinAdapter.reconcile(account(me), r);
    expect([...found.keys()]).toEqual([0, 1]);
    const result = await linkedinAdapter.publish(account(me), r, recordingProgress(found));
    expect(api.postsOf(me.id)).toHaveLength(1);
    expect(result.external_id).toBe(api.postsOf(me.id)[0].urn);
  }, 40_000);

  it("without r_member_social reconcile cannot say: the outcome stays unknown (verify_on_platform in the end)", async () => {
    const me = api.addAccount("Gil", { readPosts: false });
    const err = await providerFailure(linkedinAdapter.reconcile(account(me), rendition(["anything"])));
    expect(err.info).toMatchObject({ code: "reconcile_not_permitted", outcomeUnknown: true });
  });
});
