import { planChunks, sendChunks } from "../../providers/chunked-upload";
import { providerFetch, readJson } from "../../providers/http";
import { mediaSize, readMediaRange } from "../../providers/media-range";
import { bearer, youtubeApi, youtubeError } from "./api";
import { ProviderError, type AccountContext, type MediaRef, type UploadCheckpoint, type UploadCheckpoints } from "../../providers/types";

/**
 * YouTube's resumable upload protocol (developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * `POST /upload/youtube/v3/videos?uploadType=resumable` with the video's metadata answers a session URI
 * (Location); each chunk is a `PUT` of `Content-Range: bytes a-b/total`, answered `308 Resume Incomplete` with
 * `Range: bytes=0-N` (what YouTube holds) until the last, answered 200/201 with the video resource. A `PUT` of
 * `Content-Range: bytes *⁄total` (an asterisk for the range) with no body asks where the session stands: after a crash the upload resumes
 * at the offset YouTube reports, which may be past the saved one, never before what it holds.
 */

/** Chunks must be multiples of 256 KiB; 8 MiB keeps one chunk in memory and few requests. */
export const YOUTUBE_CHUNK_BYTES = 32 * 256 * 1024;

export const UPLOAD_KEY = "video-0";

export interface YouTubeVideoMeta {
  title: string;
  description: string;
  privacyStatus: "private" | "unlisted" | "public";
}

/** What a chunk PUT (or a status query) answered: the offset held, or the finished video's id. */
async function sessionAnswer(res: Response): Promise<{ offset: number; videoId: string | null }> {
  if (res.status === 308) {
    const m = /bytes=0-(\d+)/.exec(res.headers.get("range") ?? "");
    await res.body?.cancel();
    return { offset: m ? Number(m[1]) + 1 : 0, videoId: null };
  }
  if (res.status === 200 || res.status === 201) {
    const id = (await readJson<{ id?: unknown }>(res))?.id;
    if (typeof id !== "string")
      throw new ProviderError("YouTube finished the upload without the video's id.", { kind: "unknown", code: "malformed_id", retryable: true });
    return { offset: Number.NaN, videoId: id };
  }
  throw await youtubeError(res);
}

async function putToSession(account: AccountContext, session: string, contentRange: string, body?: Uint8Array<ArrayBuffer>) {
  return providerFetch(session, {
    method: "PUT",
    headers: { authorization: bearer(account), "content-range": contentRange, "content-length": String(body?.byteLength ?? 0) },
    body,
    allowPrivateUrls: account.allowPrivateUrls,
    timeoutMs: 120_000,
  });
}

async function startSession(account: AccountContext, meta: YouTubeVideoMeta, total: number, mimeType: string): Promise<string> {
  const res = await youtubeApi(account, "/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status", {
    method: "POST",
    headers: { "x-upload-content-length": String(total), "x-upload-content-type": mimeType },
    body: { snippet: { title: meta.title, description: meta.description }, status: { privacyStatus: meta.privacyStatus, selfDeclaredMadeForKids: false } },
  });
  const session = res.headers.get("location");
  await res.body?.cancel();
  if (!session) throw new ProviderError("YouTube opened no upload session.", { kind: "unavailable", code: "no_upload_session", retryable: true });
  return session;
}

/** The session YouTube no longer knows (expired or dropped): nothing was made by it, so a fresh one starts. */
class SessionGone extends Error {}

const isGone = (res: Response) => res.status === 404 || res.status === 410;

/** What a checkpoint uploads: the media item and its length (a file replaced under a rendition differs in one or both). */
export const uploadIdentity = (media: MediaRef, total: number) => `${media.id ?? "media"}:${total}`;

/**
 * Where a saved session stands at YouTube: the offset it holds, the video id when it finished, or null when
 * the session is gone (expired: a new one starts; nothing was published by it).
 */
async function sessionStatus(account: AccountContext, checkpoint: UploadCheckpoint): Promise<{ offset: number; videoId: string | null } | null> {
  const res = await putToSession(account, checkpoint.session, `bytes */${checkpoint.total}`);
  if (isGone(res)) {
    await res.body?.cancel();
    return null;
  }
  return sessionAnswer(res);
}

/**
 * The checkpoint to go on from: a finished video is kept whatever the rendition carries now (YouTube made it; a
 * second upload would post twice); an unfinished session is continued only when it uploads this very file (same
 * media item, same length) and YouTube still knows it; otherwise null, and a fresh session starts from byte 0 (an
 * unfinished session makes no video, so abandoning it posts nothing).
 */
async function resumable(account: AccountContext, checkpoint: UploadCheckpoint, identity: string, total: number): Promise<UploadCheckpoint | null> {
  const status = await sessionStatus(account, checkpoint);
  if (status?.videoId) return { ...checkpoint, offset: checkpoint.total, platformId: status.videoId, phase: "processing" };
  // A checkpoint saved before identities were kept is taken as this file's when the length agrees.
  const same = checkpoint.total === total && (checkpoint.media === undefined || checkpoint.media === identity);
  return status && same ? { ...checkpoint, offset: status.offset } : null;
}

/** Uploads the video (resuming a saved session); answers the checkpoint with the video id, ready to poll. */
export async function uploadYouTubeVideo(
  account: AccountContext,
  media: MediaRef,
  meta: YouTubeVideoMeta,
  uploads?: UploadCheckpoints,
): Promise<UploadCheckpoint> {
  let checkpoint = await uploads?.load(UPLOAD_KEY);
  if (checkpoint?.phase === "processing" && checkpoint.platformId) return checkpoint;
  const total = await mediaSize(account, media);
  const identity = uploadIdentity(media, total);
  if (checkpoint) checkpoint = await resumable(account, checkpoint, identity, total);
  // At most one restart per attempt: a session lost again right away is left to the next attempt.
  for (let fresh = 0; ; fresh++) {
    if (!checkpoint) {
      checkpoint = {
        session: await startSession(account, meta, total, media.mime_type),
        platformId: null,
        total,
        chunkSize: YOUTUBE_CHUNK_BYTES,
        offset: 0,
        phase: "uploading",
        media: identity,
      };
      await uploads?.save(UPLOAD_KEY, checkpoint);
    }
    if (checkpoint.phase !== "uploading") return checkpoint;
    try {
      return await sendAll(account, media, checkpoint, uploads);
    } catch (err) {
      if (!(err instanceof SessionGone)) throw err;
      if (fresh > 0)
        throw new ProviderError("YouTube lost the upload session twice in one attempt.", { kind: "unavailable", code: "upload_session_lost", retryable: true });
      checkpoint = null;
    }
  }
}

/** Every chunk after the checkpoint's offset; the final checkpoint (video id known, processing) saved. */
async function sendAll(account: AccountContext, media: MediaRef, start: UploadCheckpoint, uploads?: UploadCheckpoints): Promise<UploadCheckpoint> {
  const { total, session } = start;
  const done = await sendChunks({
    key: UPLOAD_KEY,
    checkpoint: start,
    chunks: planChunks(total, start.chunkSize),
    uploads,
    read: (c) => readMediaRange(account, media, c.start, c.end),
    async send(c, bytes) {
      const res = await putToSession(account, session, `bytes ${c.start}-${c.end - 1}/${total}`, bytes);
      if (isGone(res)) {
        await res.body?.cancel();
        throw new SessionGone();
      }
      const answer = await sessionAnswer(res);
      return answer.videoId ? { offset: total, platformId: answer.videoId } : { offset: answer.offset };
    },
  });
  if (!done.platformId)
    throw new ProviderError("YouTube took every byte but named no video.", { kind: "unavailable", code: "upload_incomplete", retryable: true });
  const processing: UploadCheckpoint = { ...done, phase: "processing" };
  await uploads?.save(UPLOAD_KEY, processing);
  return processing;
}
