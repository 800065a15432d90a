import { contentRange, readJsonBody, startSinkServer, UploadSink, type SinkAnswer } from "./chunk-sink";
import { mountOAuth, newToken, tokenRegistry } from "./stand-in-kit";

/**
 * A TEST DOUBLE of TikTok's Open API, written from TikTok's public references (developers.tiktok.com/doc):
 * the Content Posting API ("Direct Post": POST /v2/post/publish/creator_info/query/ and /v2/post/publish/video/init/;
 * "Media Transfer Guide": chunk rules, PUT upload_url with Content-Range; "Get Post Status":
 * POST /v2/post/publish/status/fetch/), Login Kit ("Login Kit for Web": GET /v2/auth/authorize/ with
 * `client_key`; "Manage User Access Tokens": POST /v2/oauth/token/, authorization code with PKCE and
 * refresh_token grants, access tokens valid 24 hours), the Display API ("Get User Info" GET /v2/user/info/,
 * "List Videos" POST /v2/video/list/), "Rate Limits" and the error-code table. TikTok cannot run here; this
 * answers the calls Herald makes the way those pages describe:
 *
 * - POST /v2/post/publish/creator_info/query/ → `{data: {creator_username, creator_nickname, creator_avatar_url,
 *   privacy_level_options, comment_disabled, duet_disabled, stitch_disabled, max_video_post_duration_sec}}`
 *   (`setCreator` changes a user's).
 * - POST /v2/post/publish/video/init/ `{post_info: {title, privacy_level, disable_comment, disable_duet,
 *   disable_stitch}, source_info: {source: "FILE_UPLOAD", video_size, chunk_size, total_chunk_count}}` →
 *   `{data: {publish_id, upload_url}, error: {code: "ok"}}`. A privacy_level not among the creator's options →
 *   400 `privacy_level_option_mismatch`. Chunks are 5 MB to 64 MB (a file under 5 MB is one chunk of its own
 *   size), total_chunk_count must be floor(video_size / chunk_size) (the last chunk takes the remainder, up to
 *   128 MB), at most 1000 chunks, else 400 `invalid_params`; a caption over 2,200 characters → 400 `invalid_params`.
 * - PUT <upload_url> with `Content-Range: bytes a-b/total` and `Content-Type: video/mp4`: each chunk must
 *   start where the upload stands and be chunk_size bytes (the last the rest) → 206, the last 201.
 * - POST /v2/post/publish/status/fetch/ `{publish_id}` → `{data: {status, fail_reason, uploaded_bytes,
 *   publicaly_available_post_id}}` (TikTok's spelling): PROCESSING_UPLOAD while bytes are missing, then for the
 *   first `processingPolls` looks PROCESSING_UPLOAD again, then PUBLISH_COMPLETE (a SELF_ONLY post has no public
 *   id; any other gets one, listed by /v2/video/list/), or FAILED with `fail_reason` when set to fail.
 * - GET /v2/user/info/?fields=… → `{data: {user: {…the fields asked for}}}` (open_id, username, display_name,
 *   avatar_url, follower_count).
 * - POST /v2/video/list/?fields=… `{cursor?, max_count?}` → `{data: {videos, cursor, has_more}}`: the user's
 *   public videos, newest first, at most max_count (1–20, else 400 `invalid_params`); `cursor` is a create time
 *   in UTC milliseconds, the next page holds the videos created before it.
 * - With `oauth`, Login Kit at TikTok's paths (test/peers/oauth-server.ts): client_key, the secret in the form
 *   body, PKCE S256 required, `expires_in` 86400, refresh tokens rotated; the token answer carries `open_id`.
 * - 401 `{error: {code: "access_token_invalid", message, log_id}}` for an unknown, revoked or expired token;
 *   429 `{error: {code: "rate_limit_exceeded"}}` with no reset header (TikTok documents none: its limits are
 *   counted over a one-minute sliding window).
 *
 * Faults: on chunk PUTs `failNextChunk(status, code, headers)`, `dropAfterStoringNextChunk()`; on the video list
 * `tamperNextVideoList(fn)` (its answer altered: a malformed answer); on posts
 * `rateLimitNext(n)` (the next video/init answers 429), `hangNext(n)` (the next upload's last chunk is stored,
 * completing the post, and its answer never comes; the user is recorded in `hung`).
 */

export interface TikTokUser {
  openId: string;
  username: string;
  followers: number;
  creator: CreatorInfo;
}

export interface CreatorInfo {
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
}

export interface TikTokPublish {
  id: string;
  user: TikTokUser;
  caption: string;
  privacy: string;
  /** disable_comment, disable_duet, disable_stitch as sent. */
  disabled: { comment: boolean; duet: boolean; stitch: boolean };
  chunkSize: number;
  chunkCount: number;
  sink: UploadSink;
  polls: number;
  failReason: string | null;
  /** The public video id once published (none for SELF_ONLY). */
  videoId: string | null;
}

/** A public video as the Display API lists it. */
export interface TikTokVideo {
  id: string;
  user: TikTokUser;
  createTime: number;
  title: string;
  view_count: number;
  like_count: number;
  comment_count: number;
  share_count: number;
}

const MB = 1024 * 1024;
const answer = (status: number, code: string, message = "", data: unknown = {}, headers: Record<string, string> = {}): SinkAnswer => ({
  status,
  headers,
  body: { data, error: { code, message, log_id: newToken("log") } },
});
const hangForever = () => new Promise<never>(() => {});

export async function startTikTokApi(opts: { processingPolls?: number; oauth?: { clientId: string; clientSecret: string } } = {}) {
  const tokens = tokenRegistry<TikTokUser>();
  const publishes = new Map<string, TikTokPublish>();
  const videos: TikTokVideo[] = [];
  const chunkFaults: ({ kind: "fail"; answer: SinkAnswer } | { kind: "drop" })[] = [];
  const postFaults: ("rate_limit" | "hang")[] = [];
  const hung: string[] = [];
  const listTampers: ((body: unknown) => unknown)[] = [];
  let listCalls = 0;
  let processingPolls = opts.processingPolls ?? 1;
  let nextFailure: string | null = null;
  let connecting: TikTokUser | null = null;
  // 19 digits, past 2^53: TikTok documents publicaly_available_post_id as int64 numbers, sent as such (see the status answer).
  let videoSeq = 7_300_000_000_000_000_001n;
  const oauth = opts.oauth
    ? mountOAuth(tokens, {
        ...opts.oauth,
        paths: { authorize: "/v2/auth/authorize/", token: "/v2/oauth/token/" },
        clientAuth: "body",
        clientIdParam: "client_key",
        requirePkce: true,
        accessTokenTtlSeconds: 86_400,
      })
    : null;

  function publishVideo(p: TikTokPublish) {
    if (p.videoId || p.privacy === "SELF_ONLY") return;
    p.videoId = String(videoSeq++);
    videos.push({
      id: p.videoId,
      user: p.user,
      createTime: Math.floor(Date.now() / 1000),
      title: p.caption,
      view_count: 0,
      like_count: 0,
      comment_count: 0,
      share_count: 0,
    });
  }

  const server = await startSinkServer(async (r, url) => {
    // TikTok's token answer names the user by `open_id` and says how long the refresh token lasts (365 days).
    const login = await oauth?.sinkAnswer(r, (body) =>
      connecting ? { ...body, open_id: connecting.openId, refresh_expires_in: 31_536_000, token_type: "Bearer" } : body,
    );
    if (login) return login;

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
      if (p.sink.complete && postFaults[0] === "hang") {
        postFaults.shift();
        hung.push(p.user.openId);
        return hangForever();
      }
      return { status: p.sink.complete ? 201 : 206 };
    }

    const user = tokens.accountOf(r.headers);
    if (!user) return answer(401, "access_token_invalid", "The access token is invalid or not found in the request.");

    if (r.method === "POST" && r.path === "/v2/post/publish/creator_info/query/") {
      return answer(200, "ok", "", {
        creator_avatar_url: "https://p16.example/a.jpg",
        creator_username: user.username,
        creator_nickname: user.username,
        ...user.creator,
      });
    }

    if (r.method === "POST" && r.path === "/v2/post/publish/video/init/") {
      const body = (await readJsonBody(r.req)) as
        | {
            post_info?: { title?: unknown; privacy_level?: unknown; disable_comment?: unknown; disable_duet?: unknown; disable_stitch?: unknown };
            source_info?: { source?: unknown; video_size?: unknown; chunk_size?: unknown; total_chunk_count?: unknown };
          }
        | undefined;
      if (postFaults[0] === "rate_limit") {
        postFaults.shift();
        return answer(429, "rate_limit_exceeded", "API rate limit was exceeded, please try again later.");
      }
      const s = body?.source_info;
      const size = Number(s?.video_size);
      const chunk = Number(s?.chunk_size);
      const count = Number(s?.total_chunk_count);
      const caption = String(body?.post_info?.title ?? "");
      const privacy = String(body?.post_info?.privacy_level ?? "");
      if (s?.source !== "FILE_UPLOAD") return answer(400, "invalid_params", "This double takes FILE_UPLOAD only.");
      if (!user.creator.privacy_level_options.includes(privacy))
        return answer(400, "privacy_level_option_mismatch", "privacy_level is not one of the creator's privacy_level_options.");
      if (!Number.isSafeInteger(size) || size <= 0 || !Number.isSafeInteger(chunk) || !Number.isSafeInteger(count))
        return answer(400, "invalid_params", "source_info is incomplete.");
      const whole = size < 5 * MB;
      if (whole ? chunk !== size || count !== 1 : chunk < 5 * MB || chunk > 64 * MB || count !== Math.floor(size / chunk) || count > 1000)
        return answer(400, "invalid_params", "chunk_size / total_chunk_count break the media transfer rules.");
      if (!whole && size - (count - 1) * chunk > 128 * MB) return answer(400, "invalid_params", "The final chunk exceeds 128 MB.");
      if ([...caption].length > 2200) return answer(400, "invalid_params", "The title is longer than 2200 characters.");
      const id = `v_pub_file~v2-1.${newToken("p").slice(2)}`;
      const info = body?.post_info;
      publishes.set(id, {
        id,
        user,
        caption,
        privacy,
        disabled: { comment: info?.disable_comment === true, duet: info?.disable_duet === true, stitch: info?.disable_stitch === true },
        chunkSize: chunk,
        chunkCount: count,
        sink: new UploadSink(size),
        polls: 0,
        failReason: nextFailure,
        videoId: null,
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
      publishVideo(p);
      const complete = answer(200, "ok", "", { status: "PUBLISH_COMPLETE", publicaly_available_post_id: "INT64_IDS", uploaded_bytes: p.sink.received });
      // The ids as JSON numbers of all their digits, as TikTok writes them (a reader must not round them to doubles).
      return { ...complete, rawJson: JSON.stringify(complete.body).replace('"INT64_IDS"', `[${p.videoId ?? ""}]`) };
    }

    if (r.method === "GET" && r.path === "/v2/user/info/") {
      const all: Record<string, unknown> = {
        open_id: user.openId,
        username: user.username,
        display_name: user.username,
        avatar_url: "https://p16.example/a.jpg",
        follower_count: user.followers,
      };
      const fields = (r.query.get("fields") ?? "").split(",").filter(Boolean);
      const unknown = fields.find((f) => !(f in all));
      if (!fields.length || unknown) return answer(400, "invalid_params", `Unknown field ${unknown ?? "(none asked)"}.`);
      return answer(200, "ok", "", { user: Object.fromEntries(fields.map((f) => [f, all[f]])) });
    }

    if (r.method === "POST" && r.path === "/v2/video/list/") {
      listCalls += 1;
      const body = (await readJsonBody(r.req)) as { cursor?: unknown; max_count?: unknown } | undefined;
      const max = body?.max_count === undefined ? 10 : Number(body.max_count);
      if (!Number.isInteger(max) || max < 1 || max > 20) return answer(400, "invalid_params", "max_count must be 1 to 20.");
      const fields = (r.query.get("fields") ?? "").split(",").filter(Boolean);
      const known = ["id", "create_time", "title", "share_url", "view_count", "like_count", "comment_count", "share_count"];
      const unknown = fields.find((f) => !known.includes(f));
      if (!fields.length || unknown) return answer(400, "invalid_params", `Unknown field ${unknown ?? "(none asked)"}.`);
      const before = body?.cursor === undefined || body.cursor === null ? Number.POSITIVE_INFINITY : Number(body.cursor);
      const mine = videos.filter((v) => v.user === user && v.createTime * 1000 < before).sort((a, b) => b.createTime - a.createTime || (b.id > a.id ? 1 : -1));
      const page = mine.slice(0, max);
      const shown = page.map((v) => {
        const all: Record<string, unknown> = { ...v, create_time: v.createTime, share_url: `https://www.tiktok.com/@${v.user.username}/video/${v.id}` };
        return Object.fromEntries(fields.map((f) => [f, all[f]]));
      });
      const last = page.at(-1);
      const out = answer(200, "ok", "", { videos: shown, cursor: last ? last.createTime * 1000 : 0, has_more: mine.length > page.length });
      const tamper = listTampers.shift();
      return tamper ? { ...out, body: tamper(out.body) } : out;
    }
    return answer(404, "invalid_params", `No route for ${r.method} ${r.path}`);
  });

  function newUser(username: string): TikTokUser {
    return {
      openId: newToken("open"),
      username,
      followers: 0,
      creator: {
        privacy_level_options: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
        comment_disabled: false,
        duet_disabled: false,
        stitch_disabled: false,
        max_video_post_duration_sec: 600,
      },
    };
  }

  return {
    url: server.url,
    stop: server.stop,
    publishes,
    videos,
    hung,
    oauth,
    /** A user with a bearer token of its own (adapter tests, without the OAuth flow). */
    addUser(username = "herald.test") {
      const user = newUser(username);
      const token = newToken("act");
      tokens.issue(token, user);
      return { user, token };
    },
    /** A user that the next authorization (Login Kit) approves; its tokens come from the token endpoint. */
    addAccount(username = `creator.${Math.random().toString(36).slice(2, 8)}`) {
      return newUser(username);
    },
    connectNext(user: TikTokUser) {
      connecting = user;
      oauth?.connectAs(user);
    },
    tokensOf: (user: TikTokUser) => tokens.tokensOf(user),
    expireTokensOf: (user: TikTokUser) => tokens.expireAll(user),
    setCreator(user: TikTokUser, info: Partial<CreatorInfo>) {
      Object.assign(user.creator, info);
    },
    /** A public video the user posted elsewhere (or earlier), created `createTime` (epoch seconds), with its counts. */
    addVideo(user: TikTokUser, v: Partial<Omit<TikTokVideo, "user">> & { createTime: number }): TikTokVideo {
      const video: TikTokVideo = { id: String(videoSeq++), title: "", view_count: 0, like_count: 0, comment_count: 0, share_count: 0, ...v, user };
      videos.push(video);
      return video;
    },
    /** Completed publishes of this user, oldest first: what TikTok holds as posted. */
    postsOf: (user: TikTokUser) => [...publishes.values()].filter((p) => p.user === user && p.sink.complete),
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
    /** The next video list answer, altered (a malformed answer for a collector to refuse). */
    tamperNextVideoList(fn: (body: unknown) => unknown) {
      listTampers.push(fn);
    },
    get listCalls() {
      return listCalls;
    },
    rateLimitNext(n = 1) {
      for (let i = 0; i < n; i++) postFaults.push("rate_limit");
    },
    hangNext(n = 1) {
      for (let i = 0; i < n; i++) postFaults.push("hang");
    },
  };
}

export type TikTokApiPeer = Awaited<ReturnType<typeof startTikTokApi>>;
