import { planChunks, sendChunks } from "../../providers/chunked-upload";
import { providerFetch, readJson } from "../../providers/http";
import { mediaSize, readMediaRange } from "../../providers/media-range";
import { tiktokApi, tiktokError } from "./api";
import type { TikTokPostSettings } from "./creator";
import { ProviderError, type AccountContext, type MediaRef, type UploadCheckpoint, type UploadCheckpoints } from "../../providers/types";

/**
 * TikTok's direct post with FILE_UPLOAD (developers.tiktok.com, Content Posting API "Direct Post" and "Media
 * Transfer Guide"): `POST /v2/post/publish/video/init/` with the caption, privacy and `source_info {video_size,
 * chunk_size, total_chunk_count}` answers a `publish_id` and an `upload_url`; each chunk is a `PUT` to the
 * upload_url with `Content-Range: bytes a-b/total`, answered 206 until the last (201). Chunks are 5–64 MB, the
 * last absorbing the remainder (total_chunk_count = floor(size / chunk_size)); a file under 5 MB goes whole.
 *
 * FILE_UPLOAD, not PULL_FROM_URL: TikTok pulls only from URL prefixes whose domain the app owner verified with
 * TikTok, which a self-hosted Herald's PUBLIC_BASE_URL usually is not; uploading works for every instance.
 * After a crash the upload resumes at the offset saved after the last confirmed chunk (TikTok's upload URL has
 * no status query; the status fetch's `uploaded_bytes` is read when it gives more).
 */

export const TIKTOK_CHUNK_BYTES = 10 * 1024 * 1024;
export const TIKTOK_MIN_CHUNK_BYTES = 5 * 1024 * 1024;
export const UPLOAD_KEY = "video-0";

/** The chunk size TikTok is told: the whole file under 5 MB, else TIKTOK_CHUNK_BYTES. Pure. */
export const tiktokChunkSize = (total: number) => (total < TIKTOK_MIN_CHUNK_BYTES ? total : Math.min(total, TIKTOK_CHUNK_BYTES));

/** `post_info` of the init: the caption (`title`) and the settings read from creator_info (./tiktok-creator.ts). */
export interface TikTokPostInfo extends TikTokPostSettings {
  title: string;
}

async function init(account: AccountContext, post: TikTokPostInfo, total: number): Promise<UploadCheckpoint> {
  const chunkSize = tiktokChunkSize(total);
  const data = await tiktokApi<{ publish_id?: string; upload_url?: string }>(account, "/v2/post/publish/video/init/", {
    method: "POST",
    body: {
      post_info: post,
      source_info: { source: "FILE_UPLOAD", video_size: total, chunk_size: chunkSize, total_chunk_count: planChunks(total, chunkSize, true).length },
    },
  });
  if (!data.publish_id || !data.upload_url)
    throw new ProviderError("TikTok answered the upload without its publish_id or upload_url.", { kind: "unknown", code: "malformed_answer", retryable: true });
  return { session: data.upload_url, platformId: data.publish_id, total, chunkSize, offset: 0, phase: "uploading" };
}

async function putChunk(account: AccountContext, url: string, start: number, end: number, total: number, bytes: Uint8Array<ArrayBuffer>, mimeType: string) {
  const res = await providerFetch(url, {
    method: "PUT",
    headers: { "content-type": mimeType, "content-length": String(bytes.byteLength), "content-range": `bytes ${start}-${end - 1}/${total}` },
    body: bytes,
    allowPrivateUrls: account.allowPrivateUrls,
    timeoutMs: 120_000,
  });
  if (res.status !== 206 && res.status !== 201 && res.status !== 200) throw tiktokError(res, await readJson(res));
  await res.body?.cancel();
}

/** Uploads the video (resuming a saved upload); answers the checkpoint with the publish_id, ready to poll. */
export async function uploadTikTokVideo(
  account: AccountContext,
  media: MediaRef,
  /** Asked only when a new upload starts (not when one resumes): creator_info is read just before the init. */
  post: () => Promise<TikTokPostInfo>,
  uploads: UploadCheckpoints | undefined,
  uploadedBytes: (publishId: string) => Promise<number | null>,
): Promise<UploadCheckpoint> {
  let checkpoint = await uploads?.load(UPLOAD_KEY);
  if (checkpoint?.phase === "processing") return checkpoint;
  if (checkpoint?.platformId) {
    const held = await uploadedBytes(checkpoint.platformId);
    if (held !== null && held > checkpoint.offset) checkpoint = { ...checkpoint, offset: held };
  }
  if (!checkpoint) {
    checkpoint = await init(account, await post(), await mediaSize(account, media));
    await uploads?.save(UPLOAD_KEY, checkpoint);
  }
  const { total, session } = checkpoint;
  const done = await sendChunks({
    key: UPLOAD_KEY,
    checkpoint,
    chunks: planChunks(total, checkpoint.chunkSize, true),
    uploads,
    read: (c) => readMediaRange(account, media, c.start, c.end),
    async send(c, bytes) {
      await putChunk(account, session, c.start, c.end, total, bytes, media.mime_type);
      return { offset: c.end };
    },
  });
  checkpoint = { ...done, phase: "processing" };
  await uploads?.save(UPLOAD_KEY, checkpoint);
  return checkpoint;
}
