import { newToken, tokenRegistry } from "./stand-in-kit";
import { contentRange, readJsonBody, startSinkServer, UploadSink, type SinkAnswer } from "./chunk-sink";

/**
 * A TEST DOUBLE of TikTok's Content Posting API, written from TikTok's public reference
 * (developers.tiktok.com/doc: "Content Posting API – Direct Post" (POST /v2/post/publish/video/init/),
 * "Media Transfer Guide" (chunk rules, PUT upload_url with Content-Range), "Get Post Status"
 * (POST /v2/post/publish/status/fetch/), "Get User Info" (GET /v2/user/info/) and the error-code table).
 * TikTok cannot run here; this answers the calls Herald makes the way those pages describe:
 *
 * - POST /v2/post/publish/video/init/ `{post_info: {title, privacy_level}, source_info: {source: "FILE_UPLOAD",
 *   video_size, chunk_size, total_chunk_count}}` → `{data: {publish_id, upload_url}, error: {code: "ok"}}`.
 *   Chunks are 5 MB to 64 MB (a file under 5 MB is one chunk of its own size), total_chunk_count must be
 *   floor(video_size / chunk_size) (the last chunk takes the remainder, up to 128 MB), at most 1000 chunks,
 *   else 400 `invalid_params`; a caption over 2,200 characters → 400 `invalid_params`.
 * - PUT <upload_url> with `Content-Range: bytes a-b/total` and `Content-Type: video/mp4`: each chunk must
 *   start where the upload stands and be chunk_size bytes (the last the rest) → 206, the last 201.
 * - POST /v2/post/publish/status/fetch/ `{publish_id}` → `{data: {status, fail_reason, uploaded_bytes,
 *   publicaly_available_post_id}}` (TikTok's spelling): PROCESSING_UPLOAD while bytes are missing, then for the
 *   first `processingPolls` looks PROCESSING_UPLOAD again, then PUBLISH_COMPLETE (a SELF_ONLY post has no public
 *   id), or FAILED with `fail_reason` when set to fail.
 * - GET /v2/user/info/?fields=… → `{data: {user: {open_id, username, display_name, avatar_url}}}`.
 * - 401 `{error: {code: "access_token_invalid"}}`; 429 `{error: {code: "rate_limit_exceeded"}}` (TikTok documents
 *   no reset header; this double sends Retry-After).
 *
 * Faults on chunk PUTs: `failNextChunk(status, code, headers)`, `dropAfterStoringNextChunk()`.
 */

export interface TikTokUser {
  openId: string;
  username: string;
}

export interface TikTokPublish {
  id: string;
  user: TikTokUser;
  caption: string;
  privacy: string;
  chunkSize: number;
  chunkCount: number;
  sink: UploadSink;
  polls: number;
  failReason: string | null;
}

const MB = 1024 * 1024;
const answer = (status: number, code: string, message = "", data: unknown = {}, headers: Record<string, string> = {}): SinkAnswer => ({
  status,
  headers,
  body: { data, error: { code, message, log_id: newToken("log") } },
});

export async function startTikTokApi(opts: { processingPolls?: number } = {}) {
  const tokens = tokenRegistry<TikTokUser>();
  const publishes = new Map<string, TikTokPublish>();
  const chunkFaults: ({ kind: "fail"; answer: SinkAnswer } | { kind: "drop" })[] = [];
  let processingPolls = opts.processingPolls ?? 1;
  let nextFailure: string | null = null;

  const server = await startSinkServer(async (r, url) => {
    if (r.method === "PUT" && r.path === "/upload/") {
      // The upload URL carries its own token (upload_token), as TikTok's does: no bearer token here.
      const p = publishes.get(r.query.get("upload_id") ?? "");
      if (!p || r.query.get("upload_token") !== p.id) return answer(404, "invalid_params", "Unknown upload.");
      const fault = chunkFaults.shift();
      if (fault?.kind === "fail") return fault.answer;
      const range = contentRange(r.headers["content-range"]);
      if (!range || "query" in range || range.total !== p.sink.total)
        return answer(400, "invalid_params", "Content-Range is missing or does not match video_size.");
      const index = Math.round(range.start / p.chunkSize);
      const expected = index === p.chunkCount - 1 ? p.sink.total - index * p.chunkSize : p.chunkSize;
      if (range.start !== p.sink.received || range.start !== index * p.chunkSize)
        return answer(400, "invalid_params", `The chunk starts at ${range.start}; ${p.sink.received} bytes are uploaded.`);
      if (range.end - range.start + 1 !== expected) return answer(400, "invalid_params", `Chunk ${index} must be ${expected} bytes.`);
      const got = await p.sink.take(r.req, range.start);
      if (got !== expected) throw new Error(`chunk of ${got} bytes where ${expected} were announced`);
      if (fault?.kind === "drop") return { status: 0, drop: true };
      return { status: p.sink.complete ? 201 : 206 };
    }

    const user = tokens.accountOf(r.headers);
    if (!user) return answer(401, "access_token_invalid", "The access token is invalid or not found in the request.");

    if (r.method === "POST" && r.path === "/v2/post/publish/video/init/") {
      const body = (await readJsonBody(r.req)) as
        | {
            post_info?: { title?: unknown; privacy_level?: unknown };
            source_info?: { source?: unknown; video_size?: unknown; chunk_size?: unknown; total_chunk_count?: unknown };
          }
        | undefined;
      const s = body?.source_info;
      const size = Number(s?.video_size);
      const chunk = Number(s?.chunk_size);
      const count = Number(s?.total_chunk_count);
      const caption = String(body?.post_info?.title ?? "");
      if (s?.source !== "FILE_UPLOAD") return answer(400, "invalid_params", "This double takes FILE_UPLOAD only.");
      if (!Number.isSafeInteger(size) || size <= 0 || !Number.isSafeInteger(chunk) || !Number.isSafeInteger(count))
        return answer(400, "invalid_params", "source_info is incomplete.");
      const whole = size < 5 * MB;
      if (whole ? chunk !== size || count !== 1 : chunk < 5 * MB || chunk > 64 * MB || count !== Math.floor(size / chunk) || count > 1000)
        return answer(400, "invalid_params", "chunk_size / total_chunk_count break the media transfer rules.");
      if (!whole && size - (count - 1) * chunk > 128 * MB) return answer(400, "invalid_params", "The final chunk exceeds 128 MB.");
      if ([...caption].length > 2200) return answer(400, "invalid_params", "The title is longer than 2200 characters.");
      const id = `v_pub_file~v2-1.${newToken("p").slice(2)}`;
      publishes.set(id, {
        id,
        user,
        caption,
        privacy: String(body?.post_info?.privacy_level ?? ""),
        chunkSize: chunk,
        chunkCount: count,
        sink: new UploadSink(size),
        polls: 0,
        failReason: nextFailure,
      });
      nextFailure = null;
      return answer(200, "ok", "", { publish_id: id, upload_url: `${url}/upload/?upload_id=${encodeURIComponent(id)}&upload_token=${encodeURIComponent(id)}` });
    }

    if (r.method === "POST" && r.path === "/v2/post/publish/status/fetch/") {
      const body = (await readJsonBody(r.req)) as { publish_id?: unknown } | undefined;
      const p = publishes.get(String(body?.publish_id ?? ""));
      if (!p || p.user !== user) return answer(400, "invalid_publish_id", "publish_id does not exist.");
      if (!p.sink.complete) return answer(200, "ok", "", { status: "PROCESSING_UPLOAD", uploaded_bytes: p.sink.received });
      p.polls += 1;
      if (p.polls <= processingPolls) return answer(200, "ok", "", { status: "PROCESSING_UPLOAD", uploaded_bytes: p.sink.received });
      if (p.failReason) return answer(200, "ok", "", { status: "FAILED", fail_reason: p.failReason });
      return answer(200, "ok", "", { status: "PUBLISH_COMPLETE", publicaly_available_post_id: [], uploaded_bytes: p.sink.received });
    }

    if (r.method === "GET" && r.path === "/v2/user/info/") {
      return answer(200, "ok", "", {
        user: { open_id: user.openId, username: user.username, display_name: user.username, avatar_url: "https://p16.example/a.jpg" },
      });
    }
    return answer(404, "invalid_params", `No route for ${r.method} ${r.path}`);
  });

  return {
    url: server.url,
    stop: server.stop,
    publishes,
    addUser(username = "herald.test") {
      const user: TikTokUser = { openId: newToken("open"), username };
      const token = newToken("act");
      tokens.issue(token, user);
      return { user, token };
    },
    expireTokensOf: (user: TikTokUser) => tokens.expireAll(user),
    setProcessingPolls(n: number) {
      processingPolls = n;
    },
    failNextPublish(reason: string) {
      nextFailure = reason;
    },
    failNextChunk(status: number, code: string, headers: Record<string, string> = {}) {
      chunkFaults.push({ kind: "fail", answer: answer(status, code, code, {}, headers) });
    },
    dropAfterStoringNextChunk() {
      chunkFaults.push({ kind: "drop" });
    },
  };
}

export type TikTokApiPeer = Awaited<ReturnType<typeof startTikTokApi>>;
