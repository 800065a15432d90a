import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountContext, MediaRef, UploadCheckpoint, UploadCheckpoints } from "../lib/providers/types";
import { youtubeAdapter } from "../lib/platforms/youtube/adapter";
import { UPLOAD_KEY, YOUTUBE_CHUNK_BYTES } from "../lib/platforms/youtube/upload";
import { accountContext, recordingProgress, rendition } from "./peers/adapter-context";
import { serveRangeFile, writeBigMp4 } from "./peers/range-file-host";
import { startYouTubeApi, type YouTubeApiPeer } from "./peers/youtube-api";

/**
 * A YouTube upload whose session or file changed under it restarts from byte 0 in a fresh session instead of
 * failing the attempt: the session YouTube no longer knows (404 on a chunk or on the status query), or a checkpoint
 * saved for another media item or length than the rendition now carries. A video YouTube already made is never
 * made twice. Against the stand-in written from the YouTube Data API reference (test/peers/youtube-api.ts).
 */

const CLIP = join(__dirname, "fixtures/media/clip-64x48-12fps-2s.mp4");
let dir: string;
let first: Awaited<ReturnType<typeof serveRangeFile>>;
let second: Awaited<ReturnType<typeof serveRangeFile>>;
let firstDigest: string;
let secondDigest: string;
let yt: YouTubeApiPeer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "herald-yt-restart-"));
  // Three chunks and two: a kill after the first chunk leaves a session half-full.
  firstDigest = await writeBigMp4(join(dir, "first.mp4"), CLIP, 2 * YOUTUBE_CHUNK_BYTES + 300_000);
  secondDigest = await writeBigMp4(join(dir, "second.mp4"), CLIP, YOUTUBE_CHUNK_BYTES + 200_000);
  first = await serveRangeFile(join(dir, "first.mp4"));
  second = await serveRangeFile(join(dir, "second.mp4"));
  yt = await startYouTubeApi({ processingPolls: 0 });
}, 60_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop(), yt?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

function checkpoints() {
  const store = new Map<string, UploadCheckpoint>();
  let killAt = 0;
  let saves = 0;
  const uploads: UploadCheckpoints & { store: typeof store; killAfterChunk(n: number): void } = {
    store,
    killAfterChunk(n) {
      killAt = n;
      saves = 0;
    },
    load: async (key) => store.get(key) ?? null,
    async save(key, cp) {
      if (cp.phase === "uploading" && cp.offset > 0 && killAt && ++saves === killAt) {
        killAt = 0;
        throw new Error("killed between chunks");
      }
      store.set(key, cp);
    },
    clear: async (key) => void store.delete(key),
  };
  return uploads;
}

const channelAccount = (): { account: AccountContext; channelId: string } => {
  const { channel, token } = yt.addChannel();
  return {
    account: accountContext({ platform: "youtube", instanceUrl: yt.url, username: channel.title, credentials: { access_token: token } }),
    channelId: channel.id,
  };
};
const media = (url: string, id: string): MediaRef => ({ id, url, mime_type: "video/mp4", alt_text: null });
const publishWith = (account: AccountContext, m: MediaRef, uploads: UploadCheckpoints) =>
  youtubeAdapter.publish(account, rendition(["d"], {}, { media: [m] }), Object.assign(recordingProgress(), { uploads }));
const videosOf = (channelId: string) => yt.videos.filter((v) => v.channel.id === channelId);

describe("youtube: an upload whose session or file changed restarts instead of failing", () => {
  it("the video replaced after a kill mid-upload (another media item, another length): a fresh session from byte 0", async () => {
    const { account, channelId } = channelAccount();
    const uploads = checkpoints();
    uploads.killAfterChunk(2);
    await expect(publishWith(account, media(first.url, "med_first"), uploads)).rejects.toThrow("killed between chunks");
    const stale = uploads.store.get(UPLOAD_KEY)!;
    expect(stale).toMatchObject({ offset: YOUTUBE_CHUNK_BYTES, total: first.size });
    const out = await publishWith(account, media(second.url, "med_second"), uploads);
    const [v] = videosOf(channelId);
    expect(videosOf(channelId)).toHaveLength(1);
    expect(out.external_id).toBe(v.id);
    expect(v.sink.received).toBe(second.size);
    expect(v.sink.chunks[0].start).toBe(0);
    expect(v.sink.digest()).toBe(secondDigest);
    expect(uploads.store.get(UPLOAD_KEY)!.session).not.toBe(stale.session);
  }, 60_000);

  it("another media item of the same length is not appended to the first one's session", async () => {
    const { account, channelId } = channelAccount();
    const uploads = checkpoints();
    uploads.killAfterChunk(1);
    await expect(publishWith(account, media(first.url, "med_a"), uploads)).rejects.toThrow("killed between chunks");
    const stale = uploads.store.get(UPLOAD_KEY)!;
    // The same bytes served as another media item: the session of med_a must not be continued with it.
    const out = await publishWith(account, media(first.url, "med_b"), uploads);
    const [v] = videosOf(channelId);
    expect(out.external_id).toBe(v.id);
    expect(v.sink.chunks[0].start).toBe(0);
    expect(v.sink.chunks.length).toBe(3);
    expect(v.sink.digest()).toBe(firstDigest);
    expect(uploads.store.get(UPLOAD_KEY)!.session).not.toBe(stale.session);
  }, 60_000);

  it("the session forgotten by YouTube mid-upload (404 on a chunk): restarted in a fresh session in the same attempt", async () => {
    const { account, channelId } = channelAccount();
    const uploads = checkpoints();
    const sessions = yt.sessions.size;
    // The first chunk goes in; the second finds the session gone.
    yt.forgetSessionAtNextChunk(1);
    const out = await publishWith(account, media(first.url, "med_gone"), uploads);
    const videos = videosOf(channelId);
    expect(videos).toHaveLength(1);
    expect(out.external_id).toBe(videos[0].id);
    expect(videos[0].sink.chunks[0].start).toBe(0);
    expect(videos[0].sink.digest()).toBe(firstDigest);
    expect(yt.sessions.size).toBe(sessions + 1);
  }, 60_000);

  it("the session gone when a later attempt asks where it stands (404 on the status query): a fresh session from byte 0", async () => {
    const { account, channelId } = channelAccount();
    const uploads = checkpoints();
    uploads.killAfterChunk(2);
    await expect(publishWith(account, media(first.url, "med_expired"), uploads)).rejects.toThrow("killed between chunks");
    const stale = uploads.store.get(UPLOAD_KEY)!;
    // Expired at YouTube between attempts (sessions last about a week).
    yt.sessions.delete(new URL(stale.session).searchParams.get("upload_id")!);
    const out = await publishWith(account, media(first.url, "med_expired"), uploads);
    const videos = videosOf(channelId);
    expect(videos).toHaveLength(1);
    expect(out.external_id).toBe(videos[0].id);
    expect(videos[0].sink.chunks.map((c) => c.start)).toEqual([0, YOUTUBE_CHUNK_BYTES, 2 * YOUTUBE_CHUNK_BYTES]);
    expect(videos[0].sink.digest()).toBe(firstDigest);
  }, 60_000);

  it("the file replaced after its last chunk went in (answer lost): the first video is kept, never a second", async () => {
    const { account, channelId } = channelAccount();
    const uploads = checkpoints();
    uploads.killAfterChunk(1);
    await expect(publishWith(account, media(second.url, "med_done"), uploads)).rejects.toThrow("killed between chunks");
    yt.dropAfterStoringNextChunk();
    await expect(publishWith(account, media(second.url, "med_done"), uploads)).rejects.toMatchObject({ info: { kind: "network" } });
    expect(videosOf(channelId)).toHaveLength(1);
    const out = await publishWith(account, media(first.url, "med_other"), uploads);
    expect(videosOf(channelId)).toHaveLength(1);
    expect(out.external_id).toBe(videosOf(channelId)[0].id);
  }, 60_000);
});
