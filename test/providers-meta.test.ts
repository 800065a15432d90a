import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facebookAdapter } from "../lib/platforms/facebook/adapter";
import { instagramProblem, instagramPlan } from "../lib/platforms/instagram/body";
import { instagramAdapter, REEL_CONTAINER_KEY } from "../lib/platforms/instagram/adapter";
import { POLL_WAITS_MS } from "../lib/providers/platform-processing";
import { ProviderError, type UploadCheckpoint, type UploadCheckpoints } from "../lib/providers/types";
import { segmentLimit } from "../lib/publishing/limits";
import { mediaProblemsFor } from "../lib/publishing/media-rules";
import { planRenditions } from "../lib/publishing/plan";
import { type MetaGraphApiPeer, startMetaGraphApi } from "./peers/meta-graph-api";
import { accountContext, recordingProgress, rendition } from "./peers/adapter-context";
import { serveRangeFile } from "./peers/range-file-host";
import { ONE_PIXEL_PNG, startMediaHost } from "./peers/stand-in-kit";

/**
 * The Facebook Pages and Instagram adapters against the test double of Meta's Graph API written from Meta's
 * public reference (test/peers/meta-graph-api.ts; Meta cannot run here), and the creation-time rules for
 * Instagram. What the conformance suite does not show: several photos on one Facebook post, an Instagram
 * carousel, a Reel (its container kept across a crash, polled a bounded number of times, Instagram's failure
 * reason), the Page token kept at connection, and what Instagram refuses before anything is sent.
 */

const CLIP = "test/fixtures/media/clip-64x48-12fps-2s.mp4";

let api: MetaGraphApiPeer;
let media: Awaited<ReturnType<typeof startMediaHost>>;
let clip: Awaited<ReturnType<typeof serveRangeFile>>;
beforeAll(async () => {
  [api, media, clip] = await Promise.all([startMetaGraphApi(), startMediaHost(), serveRangeFile(CLIP)]);
});
afterAll(async () => {
  await Promise.all([api.stop(), media.stop(), clip.stop()]);
});

/** upload_checkpoints as the pipeline keeps them (lib/delivery/upload-checkpoints.ts), in memory, for adapter calls. */
function memoryUploads(): UploadCheckpoints & { kept: Map<string, UploadCheckpoint> } {
  const kept = new Map<string, UploadCheckpoint>();
  return {
    kept,
    load: async (key) => kept.get(key) ?? null,
    save: async (key, c) => void kept.set(key, c),
    clear: async (key) => void kept.delete(key),
  };
}

const pageAccount = (page: { id: string; token: string }) =>
  accountContext({ platform: "facebook", instanceUrl: api.url, externalAccountId: page.id, credentials: { access_token: page.token, page_id: page.id } });

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe("Facebook Pages", () => {
  it("posts several photos as one feed post (unpublished photos, then attached_media), Facebook fetching each URL", async () => {
    const { page } = api.addUser();
    const images = [media.image("a.png", "first"), media.image("b.png", null), media.image("c.png", "third")];
    const out = await facebookAdapter.publish(pageAccount(page), rendition(["Three pictures"], {}, { media: images }), recordingProgress());
    const [post] = api.postsOf(page.id);
    expect(out.external_id).toBe(post.id);
    expect(post.text).toBe("Three pictures");
    expect(post.images.map((i) => i.alt)).toEqual(["first", null, "third"]);
    for (const i of post.images) expect(Buffer.from(i.bytes).equals(ONE_PIXEL_PNG)).toBe(true);
    expect(media.fetched).toEqual(expect.arrayContaining(["/a.png", "/b.png", "/c.png"]));
  });

  it("joins a rendition's segments into one post, recorded for every segment", async () => {
    const { page } = api.addUser();
    const progress = recordingProgress();
    await facebookAdapter.publish(pageAccount(page), rendition(["One.", "Two."]), progress);
    expect(api.postsOf(page.id).map((p) => p.text)).toEqual(["One.\n\nTwo."]);
    expect(progress.calls.map(([position, ref]) => [position, ref.id])).toEqual([
      [0, api.postsOf(page.id)[0].id],
      [1, api.postsOf(page.id)[0].id],
    ]);
  });

  it("keeps the Page's token, not the user's, at connection; reads the Page with it afterwards", async () => {
    const { user, page } = api.addUser();
    api.issueUserToken(user, "user-token-for-test");
    const profile = await facebookAdapter.readProfile(
      accountContext({ platform: "facebook", instanceUrl: api.url, credentials: { access_token: "user-token-for-test" } }),
    );
    expect(profile).toMatchObject({ external_account_id: page.id, username: page.name, credentials: { access_token: page.token, page_id: page.id } });
    expect(profile.credentialsExpireInSeconds).toBeNull();
    const again = await facebookAdapter.readProfile(pageAccount(page));
    expect(again).toMatchObject({ external_account_id: page.id, username: page.name });
    expect(again.credentials).toBeUndefined();
  });

  it("refuses video before sending anything", async () => {
    const { page } = api.addUser();
    const err = await failure(
      facebookAdapter.publish(
        pageAccount(page),
        rendition(["A film"], {}, { media: [{ url: `${media.url}/v.mp4`, mime_type: "video/mp4", alt_text: null }] }),
        recordingProgress(),
      ),
    );
    expect(err.info).toMatchObject({ kind: "validation", code: "media_unsupported" });
    expect(api.postsOf(page.id)).toEqual([]);
  });
});

describe("Instagram", () => {
  const igAccount = (page: { token: string; id: string; ig: { id: string } | null }) =>
    accountContext({
      platform: "instagram",
      instanceUrl: api.url,
      externalAccountId: page.ig!.id,
      credentials: { access_token: page.token, page_id: page.id },
    });

  it("publishes a carousel: one container per image, a CAROUSEL container, then media_publish", async () => {
    const { page } = api.addUser({ instagram: true });
    const images = [media.image("x.png", "one"), media.image("y.png", "two")];
    const out = await instagramAdapter.publish(igAccount(page), rendition(["A caption #herald"], {}, { media: images }), recordingProgress());
    const [post] = api.postsOf(page.ig!.id);
    expect(out).toEqual({ external_id: post.id, external_url: post.permalink });
    expect(post.text).toBe("A caption #herald");
    expect(post.images.map((i) => i.alt)).toEqual(["one", "two"]);
  });

  const video = () => ({ url: clip.url, mime_type: "video/mp4", alt_text: null });

  it("publishes a Reel: a REELS container with video_url, polled until FINISHED, then media_publish; Instagram fetched the video", async () => {
    const { page } = api.addUser({ instagram: true });
    const uploads = memoryUploads();
    const out = await instagramAdapter.publish(igAccount(page), rendition(["A film #reel"], {}, { media: [video()] }), { ...recordingProgress(), uploads });
    const [post] = api.postsOf(page.ig!.id);
    expect(out).toEqual({ external_id: post.id, external_url: post.permalink });
    expect(post.text).toBe("A film #reel");
    expect(Buffer.from(post.video!).equals(readFileSync(CLIP))).toBe(true);
    const [container] = api.reelContainersOf(page.ig!.id);
    // One IN_PROGRESS look, then FINISHED.
    expect(container.reel!.polls).toBe(2);
    expect(uploads.kept.get(REEL_CONTAINER_KEY)?.platformId).toBe(container.id);
  });

  it("re-uses the kept container after a crash: one container, one post", async () => {
    const { page } = api.addUser({ instagram: true });
    const uploads = memoryUploads();
    const r = rendition(["Crash in the middle"], {}, { media: [video()] });
    // The process dies just after the container's id is saved.
    const crashing: UploadCheckpoints = {
      ...uploads,
      save: async (k, c) => {
        await uploads.save(k, c);
        throw new Error("crash");
      },
    };
    await expect(instagramAdapter.publish(igAccount(page), r, { ...recordingProgress(), uploads: crashing })).rejects.toThrow("crash");
    expect(api.reelContainersOf(page.ig!.id)).toHaveLength(1);
    const out = await instagramAdapter.publish(igAccount(page), r, { ...recordingProgress(), uploads });
    expect(api.reelContainersOf(page.ig!.id)).toHaveLength(1);
    expect(api.postsOf(page.ig!.id).map((p) => p.id)).toEqual([out.external_id]);
  });

  it("ends failed with Instagram's reason when the container ends ERROR, and forgets the container", async () => {
    const { page } = api.addUser({ instagram: true });
    const uploads = memoryUploads();
    api.failNextReel("Error: Media upload has failed with error code 2207026");
    const err = await failure(
      instagramAdapter.publish(igAccount(page), rendition(["Broken film"], {}, { media: [video()] }), { ...recordingProgress(), uploads }),
    );
    expect(err.info).toMatchObject({ kind: "validation", code: "processing_failed", retryable: false });
    expect(err.message).toContain("ERROR: Error: Media upload has failed with error code 2207026");
    expect(uploads.kept.has(REEL_CONTAINER_KEY)).toBe(false);
    expect(api.postsOf(page.ig!.id)).toEqual([]);
  });

  it("polls a container still IN_PROGRESS a bounded number of times, then hands over to the retry schedule keeping it", async () => {
    const { page } = api.addUser({ instagram: true });
    const uploads = memoryUploads();
    api.setReelPolls(1000);
    try {
      const err = await failure(
        instagramAdapter.publish(igAccount(page), rendition(["Slow film"], {}, { media: [video()] }), { ...recordingProgress(), uploads }),
      );
      expect(err.info).toMatchObject({ kind: "unavailable", code: "platform-processing", retryable: true });
    } finally {
      api.setReelPolls(1);
    }
    const [container] = api.reelContainersOf(page.ig!.id);
    expect(container.reel!.polls).toBe(POLL_WAITS_MS.length);
    expect(uploads.kept.get(REEL_CONTAINER_KEY)?.platformId).toBe(container.id);
    expect(api.postsOf(page.ig!.id)).toEqual([]);
  });

  it("after a lost media_publish answer: reconciliation finds the Reel by its caption; a kept container already published is never published again", async () => {
    const { page } = api.addUser({ instagram: true });
    const uploads = memoryUploads();
    const r = rendition(["Published, answer lost"], {}, { media: [video()] });
    await instagramAdapter.publish(igAccount(page), r, { ...recordingProgress(), uploads });
    const [post] = api.postsOf(page.ig!.id);
    expect([...(await instagramAdapter.reconcile(igAccount(page), r)).values()]).toEqual([{ id: post.id, url: post.permalink }]);
    const err = await failure(instagramAdapter.publish(igAccount(page), r, { ...recordingProgress(), uploads }));
    expect(err.info).toMatchObject({ code: "container_published", outcomeUnknown: true, unverifiable: true });
    expect(api.postsOf(page.ig!.id)).toHaveLength(1);
  });

  it("finds the Instagram account through the user's Pages at connection", async () => {
    api.addUser();
    const { user, page } = api.addUser({ instagram: true });
    api.issueUserToken(user, "user-token-ig");
    const profile = await instagramAdapter.readProfile(
      accountContext({ platform: "instagram", instanceUrl: api.url, credentials: { access_token: "user-token-ig" } }),
    );
    expect(profile).toMatchObject({
      external_account_id: page.ig!.id,
      username: page.ig!.username,
      credentials: { access_token: page.token, page_id: page.id },
    });
  });

  it("refuses what Instagram cannot take (pure): no media, a long caption, 31 hashtags, a video with anything else, 11 images", () => {
    const img = { url: "https://h.example/i.png", mime_type: "image/png", alt_text: null };
    expect(instagramProblem("hi", [])?.code).toBe("media_required");
    expect(instagramProblem("x".repeat(2201), [img])?.code).toBe("text_too_long");
    expect(instagramProblem(Array.from({ length: 31 }, (_, i) => `#t${i}`).join(" "), [img])?.code).toBe("too_many_hashtags");
    expect(instagramProblem(Array.from({ length: 30 }, (_, i) => `#t${i}`).join(" "), [img])).toBeNull();
    const mp4 = { ...img, url: "https://h.example/v.mp4", mime_type: "video/mp4" };
    expect(instagramProblem("", [mp4])).toBeNull();
    expect(instagramProblem("", [mp4, img])?.code).toBe("media_mixed");
    expect(instagramProblem("", [mp4, mp4])?.code).toBe("media_mixed");
    expect(instagramProblem("", [{ ...mp4, mime_type: "video/webm" }])?.code).toBe("media_unsupported");
    expect(instagramProblem("", [{ ...img, mime_type: "audio/mpeg" }])?.code).toBe("media_unsupported");
    expect(instagramProblem("", Array(11).fill(img))?.code).toBe("too_many_media");
    expect(instagramPlan("c", [img])).toEqual({ items: [], main: { image_url: img.url, caption: "c" }, reel: false });
    expect(instagramPlan("c", [mp4])).toEqual({ items: [], main: { media_type: "REELS", video_url: mp4.url, caption: "c" }, reel: true });
  });

  it("is refused at creation without an image, and with too many hashtags, naming Instagram", () => {
    expect(mediaProblemsFor("instagram", [])).toEqual([
      { index: null, message: "instagram: An Instagram post needs an image or a video: attach one (media_ids)" },
    ]);
    expect(mediaProblemsFor("instagram", [{ mediaType: "image", mimeType: "image/png", size: 10 }])).toEqual([]);
    expect(mediaProblemsFor("instagram", [{ mediaType: "video", mimeType: "video/mp4", size: 10 }])).toEqual([]);
    expect(mediaProblemsFor("instagram", [{ mediaType: "video", mimeType: "video/mp4", size: 301 * 1024 * 1024 }])).toEqual([
      { index: 0, message: "Instagram takes videos of at most 300 MiB (314,572,800 bytes); this one is 301 MiB (315,621,376 bytes)" },
    ]);
    expect(
      mediaProblemsFor("instagram", [
        { mediaType: "video", mimeType: "video/mp4", size: 10 },
        { mediaType: "image", mimeType: "image/png", size: 10 },
      ]),
    ).toEqual([{ index: null, message: "instagram: An Instagram Reel is one video alone; Herald does not mix videos with other media" }]);
    const accounts = new Map([["acc_ig", { platform: "instagram" as const, limit: segmentLimit("instagram") }]]);
    const tags = Array.from({ length: 16 }, (_, i) => `#t${i}`).join(" ");
    const { problems } = planRenditions(
      { title: null, sourceText: "", destinations: [{ social_account_id: "acc_ig", segments: [{ body: tags }, { body: `${tags} more` }] }] },
      accounts,
    );
    expect(problems).toEqual([{ index: 0, field: "segments", message: "An instagram caption carries at most 30 hashtags; this one has 32" }]);
  });
});
