import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { media } from "../db/schema";
import { env, newUser, newWorkspace, withDb } from "./helpers/harness";
import { call, fixture, insertMediaRows, startMediaStorage, upload, type MediaStorage } from "./helpers/media";
import { newAccount } from "./helpers/publishing";

/**
 * A video longer or larger than a destination's documented limit (GET /accounts/providers `limits`) is refused
 * when the publication is created: 422 on body.media_ids[i] naming the platform and both figures.
 */
let storage: MediaStorage;
beforeAll(async () => {
  storage = await startMediaStorage();
}, 60_000);
afterAll(async () => {
  await storage?.dispose();
});

const create = (token: string, body: Record<string, unknown>) =>
  call(storage.env, "POST", "/publications", { token, json: { title: "Clip", source_text: "A clip", ...body } });
const errorsOf = (res: { body: { errors?: { location: string; message: string }[] } }) => res.body.errors ?? [];

describe("video length and size at creation", () => {
  it("a video longer than TikTok's 10 minutes is refused naming TikTok; YouTube takes it", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const tiktok = await newAccount(ws, owner.id, "tiktok", { credentials: { access_token: "unused" } });
    const youtube = await newAccount(ws, owner.id, "youtube", { credentials: { access_token: "unused" } });
    // A real upload: its duration is read from the file (2 s), and it fits both.
    const up = await upload(storage.env, owner.token, { workspaceId: ws, bytes: fixture("clip-64x48-12fps-2s.mp4"), filename: "clip.mp4" });
    expect(up.status, up.text).toBe(201);
    expect(up.body.duration_ms).toBeGreaterThan(1500);
    const fits = await create(owner.token, { workspace_id: ws, media_ids: [up.body.id], destinations: [{ social_account_id: tiktok }] });
    expect(fits.status, fits.text).toBe(201);

    // No test upload can be ten minutes long at a reasonable size, so the stored row's duration is set to 601 s.
    await withDb((db) => db.update(media).set({ durationMs: 601_000 }).where(eq(media.id, up.body.id)));
    const both = await create(owner.token, {
      workspace_id: ws,
      media_ids: [up.body.id],
      destinations: [{ social_account_id: tiktok }, { social_account_id: youtube }],
    });
    expect(both.status, both.text).toBe(422);
    expect(errorsOf(both)).toEqual([
      { location: "body.media_ids[0]", message: "TikTok takes videos of at most 600 seconds (10 min); this one is 601 seconds (10 min 1 s)" },
    ]);
    const youtubeOnly = await create(owner.token, { workspace_id: ws, media_ids: [up.body.id], destinations: [{ social_account_id: youtube }] });
    expect(youtubeOnly.status, youtubeOnly.text).toBe(201);

    // Over YouTube's 12 hours, both refuse it, each naming itself.
    await withDb((db) =>
      db
        .update(media)
        .set({ durationMs: 12 * 3600_000 + 1000 })
        .where(eq(media.id, up.body.id)),
    );
    const long = await create(owner.token, {
      workspace_id: ws,
      media_ids: [up.body.id],
      destinations: [{ social_account_id: tiktok }, { social_account_id: youtube }],
    });
    expect(long.status).toBe(422);
    expect(errorsOf(long).map((e) => e.message)).toEqual([
      expect.stringMatching(/^TikTok takes videos of at most 600 seconds/),
      "YouTube takes videos of at most 43,200 seconds (12 h); this one is 43,201 seconds (12 h 1 s)",
    ]);
  });

  it("a video whose duration is unknown is not refused for it; a video larger than the limit is, naming the platform", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const tiktok = await newAccount(ws, owner.id, "tiktok", { credentials: { access_token: "unused" } });
    const mastodon = await newAccount(ws, owner.id, "mastodon", { instanceUrl: "https://mastodon.example", credentials: { access_token: "unused" } });
    const hook = await newAccount(ws, owner.id, "webhook", { url: "https://receiver.example/hook" });
    // Rows written straight to the database: sizes this large cannot be uploaded in a test.
    const video = { mediaType: "video" as const, mimeType: "video/mp4", width: 64, height: 48 };
    const [unknown, huge, large] = await insertMediaRows(ws, [
      { ...video, durationMs: null, size: 1000 },
      { ...video, durationMs: 5000, size: 5 * 1024 ** 3 },
      { ...video, durationMs: 5000, size: 100 * 1024 ** 2 },
    ]);

    const unread = await create(owner.token, { workspace_id: ws, media_ids: [unknown], destinations: [{ social_account_id: tiktok }] });
    expect(unread.status, unread.text).toBe(201);

    const tooBig = await create(owner.token, { workspace_id: ws, media_ids: [huge], destinations: [{ social_account_id: tiktok }] });
    expect(tooBig.status).toBe(422);
    expect(errorsOf(tooBig)).toEqual([
      { location: "body.media_ids[0]", message: "TikTok takes videos of at most 4 GiB (4,294,967,296 bytes); this one is 5 GiB (5,368,709,120 bytes)" },
    ]);

    const toMastodon = await create(owner.token, {
      workspace_id: ws,
      media_ids: [large],
      destinations: [{ social_account_id: hook }, { social_account_id: mastodon }],
    });
    expect(toMastodon.status).toBe(422);
    expect(errorsOf(toMastodon)).toEqual([
      { location: "body.media_ids[0]", message: "Mastodon takes videos of at most 99 MiB (103,809,024 bytes); this one is 100 MiB (104,857,600 bytes)" },
    ]);
    // A webhook receiver takes whatever Herald stored.
    const toHook = await create(owner.token, { workspace_id: ws, media_ids: [large], destinations: [{ social_account_id: hook }] });
    expect(toHook.status, toHook.text).toBe(201);
  });
});

describe("GET /accounts/providers lists the video limits", () => {
  it("each platform's video length and size, image size; a webhook's are the instance's upload limit", async () => {
    const owner = await newUser();
    const res = await call({ ...env, MEDIA_MAX_BYTES: "1234567" }, "GET", "/accounts/providers", { token: owner.token });
    expect(res.status, res.text).toBe(200);
    const limits = Object.fromEntries((res.body as { platform: string; limits: Record<string, unknown> }[]).map((p) => [p.platform, p.limits]));
    expect(limits.tiktok).toMatchObject({ video_max_duration_seconds: 600, video_max_bytes: 4 * 1024 ** 3, image_max_bytes: null });
    expect(limits.youtube).toMatchObject({ video_max_duration_seconds: 43_200, video_max_bytes: 256 * 1024 ** 3 });
    expect(limits.instagram).toMatchObject({ video_max_duration_seconds: 900, video_max_bytes: 300 * 1024 ** 2 });
    expect(limits.mastodon).toMatchObject({ video_max_duration_seconds: null, video_max_bytes: 99 * 1024 ** 2, image_max_bytes: 16 * 1024 ** 2 });
    expect(limits.bluesky).toMatchObject({ video_max_duration_seconds: null, video_max_bytes: null, image_max_bytes: 1_000_000 });
    expect(limits.webhook).toMatchObject({ video_max_duration_seconds: null, video_max_bytes: 1_234_567, image_max_bytes: 1_234_567 });
    for (const l of Object.values(limits))
      expect(Object.keys(l)).toEqual(expect.arrayContaining(["video_max_duration_seconds", "video_max_bytes", "image_max_bytes"]));
  });
});
