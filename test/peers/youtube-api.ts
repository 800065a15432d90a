import { mountOAuth, newToken, tokenRegistry } from "./stand-in-kit";
import { contentRange, readJsonBody, startSinkServer, UploadSink, type SinkAnswer } from "./chunk-sink";

/**
 * A TEST DOUBLE of the YouTube Data API v3 and Google's OAuth 2.0, written from Google's public references: the
 * YouTube Data API (developers.google.com/youtube/v3: "Videos: insert", "Upload Videos: Resumable uploads"
 * (guides/using_resumable_upload_protocol), "Videos: list" with processingDetails, status, statistics and snippet,
 * "Channels: list" mine=true, "PlaylistItems: list", and the "Errors" page) and "Using OAuth 2.0 for Web Server
 * Applications" (developers.google.com/identity/protocols/oauth2/web-server). YouTube cannot run here; this answers
 * the calls Herald makes the way those pages describe:
 *
 * - POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status with `X-Upload-Content-Length`,
 *   `X-Upload-Content-Type` and `{snippet: {title, description}, status: {privacyStatus}}` → 200 and the session
 *   URI in `Location`. A missing title, one over 100 characters or with `<`/`>` → 400 `invalidTitle`.
 * - PUT <session> with `Content-Range: bytes a-b/total`: the chunk must start where the session stands and be a
 *   multiple of 256 KiB unless it is the last, else 400; → `308 Resume Incomplete` with `Range: bytes=0-N`, and
 *   after the last byte 200 with the video resource `{id, snippet, status: {uploadStatus: "uploaded"}}`.
 *   `Content-Range: bytes *\u002ftotal` with no body asks where it stands (308 with Range, none when nothing is
 *   held; 200 with the video once complete). An unknown session → 404.
 * - GET /youtube/v3/videos?part=processingDetails,status&id= → `processingDetails.processingStatus` `processing`
 *   for the first `processingPolls` looks, then `succeeded` (`status.uploadStatus: processed`), or, when the
 *   video is set to fail, `status.uploadStatus: rejected` with `rejectionReason` (or `failed` with `failureReason`).
 * - GET /youtube/v3/channels?mine=true → the token's channel with the parts asked: `snippet`, `statistics`
 *   (`subscriberCount` as a decimal string, or `hiddenSubscriberCount: true` and no count when the channel hides it;
 *   `videoCount`, `viewCount`) and `contentDetails.relatedPlaylists.uploads` (the uploads playlist, "UU…").
 * - GET /youtube/v3/playlistItems?part=contentDetails&playlistId=<uploads>&maxResults=(1-50)&pageToken= → the
 *   channel's videos newest first as `{contentDetails: {videoId, videoPublishedAt}}`, `nextPageToken` while more
 *   remain; an unknown playlist → 404 `playlistNotFound`.
 * - GET /youtube/v3/videos?part=statistics,snippet&id=<up to 50 ids, comma-separated> → the videos found (unknown
 *   ids left out) with `snippet.publishedAt/title` and `statistics` counts as decimal strings; a count the owner
 *   hides (likes) is absent. More than 50 ids → 400.
 * - 401 `{error: {code: 401, message, errors: [{domain: "global", reason: "authError", location: "Authorization",
 *   locationType: "header"}], status: "UNAUTHENTICATED"}}` for an unknown or expired token; 403 `quotaExceeded`.
 * - With `oauth`, Google's OAuth 2.0 for web server applications (developers.google.com/identity/protocols/oauth2/
 *   web-server) at its paths, through test/peers/oauth-server.ts: GET /o/oauth2/v2/auth (authorization code,
 *   PKCE S256 required here, `access_type=offline`), POST /token (client id and secret by HTTP Basic or in the
 *   form; `authorization_code` and `refresh_token` grants) answering `{access_token, expires_in: 3599,
 *   token_type: "Bearer", scope, refresh_token}`: access tokens last an hour. (Google keeps one refresh token;
 *   the shared server rotates it, which Herald, storing whichever it is given, takes either way.)
 *
 * Faults on chunk PUTs: `failNextChunk(status, reason, headers)` (401, 429 with Retry-After, 403 quotaExceeded),
 * `dropAfterStoringNextChunk()` (the chunk is stored and the answer lost: the connection is cut),
 * `rateLimitNext(resetAt)` (the next upload session's start → 429 `rateLimitExceeded` with `Retry-After`),
 * `hangNext()` (the next last chunk is stored, the video made, and no answer ever comes),
 * `forgetSessionAtNextChunk()` (the session expired at YouTube: that chunk and every later call to it → 404).
 */

export interface Channel {
  id: string;
  title: string;
  /** Null: the channel hides its subscriber count. */
  subscribers: number | null;
  /** A channel that never uploaded, whose uploads playlist is not found (404 playlistNotFound). */
  noUploadsPlaylist?: boolean;
}

export interface VideoStats {
  viewCount?: number;
  likeCount?: number;
  commentCount?: number;
}

interface Session {
  id: string;
  channel: Channel;
  title: string;
  description: string;
  privacy: string;
  sink: UploadSink;
  video: Video | null;
}

export interface Video {
  id: string;
  channel: Channel;
  title: string;
  description: string;
  privacy: string;
  sink: UploadSink;
  polls: number;
  publishedAt: Date;
  stats: VideoStats;
}

const CHUNK_UNIT = 256 * 1024;
const googleError = (status: number, reason: string, message: string, headers: Record<string, string> = {}): SinkAnswer => ({
  status,
  headers,
  body: { error: { code: status, message, errors: [{ reason, message, domain: "youtube" }] } },
});

const hangForever = () => new Promise<never>(() => {});

export async function startYouTubeApi(opts: { processingPolls?: number; oauth?: { clientId: string; clientSecret: string } } = {}) {
  const tokens = tokenRegistry<Channel>();
  const oauth = opts.oauth
    ? mountOAuth(tokens, {
        ...opts.oauth,
        paths: { authorize: "/o/oauth2/v2/auth", token: "/token" },
        clientAuth: "either",
        requirePkce: true,
        accessTokenTtlSeconds: 3599,
      })
    : null;
  const startFaults: Date[] = [];
  let hangs = 0;
  /** Channel ids whose last chunk was taken and never answered. */
  const hung: string[] = [];
  const sessions = new Map<string, Session>();
  const videos: Video[] = [];
  const chunkFaults: ({ kind: "fail"; answer: SinkAnswer } | { kind: "drop" } | { kind: "forget" } | { kind: "pass" })[] = [];
  const failing = new Map<string, { upload: "rejected" | "failed"; reason: string }>();
  let processingPolls = opts.processingPolls ?? 1;
  let nextFailure: { upload: "rejected" | "failed"; reason: string } | null = null;
  /** Statistics reads answered with something that is not the documented shape (a bad answer), by path. */
  const badAnswers = new Map<string, { after: number }>();
  const reads = new Map<string, number>();
  const uploadsOf = (channel: Channel) => `UU${channel.id.slice(2)}`;
  const newestFirst = (channel: Channel) => videos.filter((v) => v.channel === channel).sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime());
  const counts = (stats: VideoStats) => Object.fromEntries(Object.entries(stats).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));

  const videoResource = (v: Video) => ({
    kind: "youtube#video",
    id: v.id,
    snippet: { title: v.title, description: v.description },
    status: { uploadStatus: "uploaded", privacyStatus: v.privacy },
  });

  const server = await startSinkServer(async (r, url) => {
    // Google's token answer: no user id in it (the channel is read with the token), token_type "Bearer".
    const login = await oauth?.sinkAnswer(r, ({ user_id: _user, ...google }) => ({ ...google, token_type: "Bearer" }));
    if (login) return login;

    const channel = tokens.accountOf(r.headers);
    if (!channel)
      return {
        status: 401,
        headers: { "www-authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
        body: {
          error: {
            code: 401,
            message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
            errors: [{ message: "Invalid Credentials", domain: "global", reason: "authError", location: "Authorization", locationType: "header" }],
            status: "UNAUTHENTICATED",
          },
        },
      };

    if (r.method === "POST" && r.path === "/upload/youtube/v3/videos" && r.query.get("uploadType") === "resumable") {
      const body = (await readJsonBody(r.req)) as { snippet?: { title?: unknown; description?: unknown }; status?: { privacyStatus?: unknown } } | undefined;
      const total = Number(r.headers["x-upload-content-length"]);
      const title = body?.snippet?.title;
      if (typeof title !== "string" || !title || [...title].length > 100 || /[<>]/.test(title))
        return googleError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title.");
      if (!Number.isSafeInteger(total) || total <= 0) return googleError(400, "badContent", "X-Upload-Content-Length is required.");
      const limited = startFaults.shift();
      if (limited)
        return googleError(429, "rateLimitExceeded", "The request cannot be completed because you have exceeded your rate limit.", {
          "retry-after": String(Math.max(1, Math.ceil((limited.getTime() - Date.now()) / 1000))),
        });
      const privacy = String(body?.status?.privacyStatus ?? "public");
      const id = newToken("upload");
      sessions.set(id, { id, channel, title, description: String(body?.snippet?.description ?? ""), privacy, sink: new UploadSink(total), video: null });
      return { status: 200, headers: { location: `${url}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${id}` } };
    }

    if (r.method === "PUT" && r.path === "/upload/youtube/v3/videos") {
      const session = sessions.get(r.query.get("upload_id") ?? "");
      if (!session || session.channel !== channel) return googleError(404, "notFound", "The upload session was not found.");
      const range = contentRange(r.headers["content-range"]);
      const held = (): Record<string, string> => (session.sink.received > 0 ? { range: `bytes=0-${session.sink.received - 1}` } : {});
      if (!range || range.total !== session.sink.total) return googleError(400, "badContent", "Content-Range is missing or does not match the upload.");
      if (session.video) return { status: 200, body: videoResource(session.video) };
      if ("query" in range) return { status: 308, headers: held() };
      const fault = chunkFaults.shift();
      if (fault?.kind === "fail") return fault.answer;
      if (fault?.kind === "forget") {
        sessions.delete(session.id);
        return googleError(404, "notFound", "The upload session was not found.");
      }
      const length = range.end - range.start + 1;
      const last = range.end + 1 === session.sink.total;
      if (range.start !== session.sink.received)
        return googleError(400, "badContent", `The chunk starts at ${range.start}; the session holds ${session.sink.received} bytes.`);
      if (!last && length % CHUNK_UNIT !== 0) return googleError(400, "badContent", "A chunk other than the last must be a multiple of 256 KiB.");
      const got = await session.sink.take(r.req, range.start);
      if (got !== length) throw new Error(`chunk of ${got} bytes where Content-Range says ${length}`);
      if (session.sink.complete) {
        const video: Video = {
          id: newToken("vid").slice(0, 20),
          channel,
          title: session.title,
          description: session.description,
          privacy: session.privacy,
          sink: session.sink,
          polls: 0,
          publishedAt: new Date(),
          stats: { viewCount: 0, likeCount: 0, commentCount: 0 },
        };
        if (nextFailure) {
          failing.set(video.id, nextFailure);
          nextFailure = null;
        }
        session.video = video;
        videos.push(video);
      }
      if (fault?.kind === "drop") return { status: 0, drop: true };
      if (session.video && hangs > 0) {
        hangs--;
        hung.push(channel.id);
        return hangForever();
      }
      return session.video ? { status: 200, body: videoResource(session.video) } : { status: 308, headers: held() };
    }

    if (r.method === "GET") reads.set(r.path, (reads.get(r.path) ?? 0) + 1);
    const bad = r.method === "GET" ? badAnswers.get(r.path) : undefined;
    if (bad && bad.after-- === 0) {
      badAnswers.delete(r.path);
      return { status: 200, body: { kind: "youtube#error", items: "not a list" } };
    }

    if (r.method === "GET" && r.path === "/youtube/v3/playlistItems") {
      const playlist = r.query.get("playlistId");
      if (playlist !== uploadsOf(channel) || channel.noUploadsPlaylist)
        return googleError(404, "playlistNotFound", "The playlist identified with the request's playlistId parameter cannot be found.");
      const max = Number(r.query.get("maxResults") ?? 5);
      if (!Number.isInteger(max) || max < 0 || max > 50) return googleError(400, "invalidValue", "maxResults must be between 0 and 50.");
      const token = r.query.get("pageToken");
      const start = token ? Number(/^CP(\d+)$/.exec(token)?.[1] ?? Number.NaN) : 0;
      if (Number.isNaN(start)) return googleError(400, "invalidPageToken", "The request specifies an invalid page token.");
      const all = newestFirst(channel);
      const page = all.slice(start, start + max);
      return {
        status: 200,
        body: {
          kind: "youtube#playlistItemListResponse",
          items: page.map((v) => ({
            kind: "youtube#playlistItem",
            id: `PLI${v.id}`,
            contentDetails: { videoId: v.id, videoPublishedAt: v.publishedAt.toISOString() },
          })),
          ...(start + max < all.length ? { nextPageToken: `CP${start + max}` } : {}),
          pageInfo: { totalResults: all.length, resultsPerPage: max },
        },
      };
    }

    if (r.method === "GET" && r.path === "/youtube/v3/videos" && (r.query.get("part") ?? "").split(",").includes("statistics")) {
      const ids = (r.query.get("id") ?? "").split(",").filter(Boolean);
      if (ids.length > 50) return googleError(400, "invalidValue", "At most 50 video ids may be given.");
      const found = ids.flatMap((id) => videos.filter((v) => v.id === id && v.channel === channel));
      return {
        status: 200,
        body: {
          kind: "youtube#videoListResponse",
          items: found.map((v) => ({
            kind: "youtube#video",
            id: v.id,
            snippet: { publishedAt: v.publishedAt.toISOString(), channelId: channel.id, title: v.title, description: v.description },
            statistics: counts(v.stats),
          })),
        },
      };
    }

    if (r.method === "GET" && r.path === "/youtube/v3/videos") {
      const video = videos.find((v) => v.id === r.query.get("id") && v.channel === channel);
      if (!video) return { status: 200, body: { kind: "youtube#videoListResponse", items: [] } };
      video.polls += 1;
      const failure = failing.get(video.id);
      const done = video.polls > processingPolls;
      const status = !done
        ? { uploadStatus: "uploaded" }
        : failure
          ? { uploadStatus: failure.upload, ...(failure.upload === "rejected" ? { rejectionReason: failure.reason } : { failureReason: failure.reason }) }
          : { uploadStatus: "processed" };
      const processing = !done ? "processing" : failure ? "failed" : "succeeded";
      return {
        status: 200,
        body: { kind: "youtube#videoListResponse", items: [{ id: video.id, status, processingDetails: { processingStatus: processing } }] },
      };
    }

    if (r.method === "GET" && r.path === "/youtube/v3/channels" && r.query.get("mine") === "true") {
      const parts = (r.query.get("part") ?? "").split(",");
      const mine = videos.filter((v) => v.channel === channel);
      return {
        status: 200,
        body: {
          kind: "youtube#channelListResponse",
          items: [
            {
              kind: "youtube#channel",
              id: channel.id,
              ...(parts.includes("snippet")
                ? { snippet: { title: channel.title, customUrl: `@${channel.title}`, thumbnails: { default: { url: "https://yt3.example/a.jpg" } } } }
                : {}),
              ...(parts.includes("contentDetails") ? { contentDetails: { relatedPlaylists: { likes: "", uploads: uploadsOf(channel) } } } : {}),
              ...(parts.includes("statistics")
                ? {
                    statistics: {
                      viewCount: String(mine.reduce((n, v) => n + (v.stats.viewCount ?? 0), 0)),
                      ...(channel.subscribers === null
                        ? { hiddenSubscriberCount: true }
                        : { subscriberCount: String(channel.subscribers), hiddenSubscriberCount: false }),
                      videoCount: String(mine.length),
                    },
                  }
                : {}),
            },
          ],
        },
      };
    }
    return googleError(404, "notFound", `No route for ${r.method} ${r.path}`);
  });

  return {
    url: server.url,
    stop: server.stop,
    sessions,
    videos,
    oauth,
    hung,
    /** A channel the next authorization approves; its tokens come from the token endpoint. */
    addAccount(title = `channel-${Math.random().toString(36).slice(2, 8)}`): Channel {
      return { id: `UC${newToken("c").slice(2, 24)}`, title, subscribers: 0 };
    },
    connectNext(channel: Channel) {
      oauth?.connectAs(channel);
    },
    tokensOf: (channel: Channel) => tokens.tokensOf(channel),
    /** The next upload session's start is refused 429 rateLimitExceeded, Retry-After saying when it resets. */
    rateLimitNext(resetAt: Date) {
      startFaults.push(resetAt);
    },
    /** The next upload's last chunk is stored (the video made) and never answered. */
    hangNext() {
      hangs++;
    },
    /** Videos of this channel, oldest first. */
    videosOf: (channel: Channel) => videos.filter((v) => v.channel === channel),
    /** A channel with a fresh access token (what OAuth would have issued). */
    addChannel(title = "herald-test") {
      const channel: Channel = { id: `UC${newToken("c").slice(2, 24)}`, title, subscribers: 0 };
      const token = newToken("ya29");
      tokens.issue(token, channel);
      return { channel, token };
    },
    expireTokensOf: (channel: Channel) => tokens.expireAll(channel),
    /** The channel's subscriber count; null hides it (`hiddenSubscriberCount: true`). */
    setSubscribers(channel: Channel, n: number | null) {
      channel.subscribers = n;
    },
    /** A video already on the channel (uploaded elsewhere), with its statistics; a count left out is one YouTube omits. */
    addVideo(channel: Channel, title: string, publishedAt: Date, stats: VideoStats = {}): Video {
      const video: Video = {
        id: newToken("vid").slice(0, 20),
        channel,
        title,
        description: "",
        privacy: "public",
        sink: new UploadSink(0),
        polls: 0,
        publishedAt,
        stats,
      };
      videos.push(video);
      return video;
    },
    setStats(video: Video, stats: VideoStats) {
      video.stats = stats;
    },
    /** After `after` good answers, the next GET of this path answers 200 with a body that is not the documented shape. */
    badAnswerNext(path: string, after = 0) {
      badAnswers.set(path, { after });
    },
    /** GETs answered so far, by path. */
    readsOf: (path: string) => reads.get(path) ?? 0,
    setProcessingPolls(n: number) {
      processingPolls = n;
    },
    /** The next video to finish uploading fails processing with this reason. */
    failNextVideo(reason: string, upload: "rejected" | "failed" = "rejected") {
      nextFailure = { upload, reason };
    },
    failNextChunk(status: number, reason: string, headers: Record<string, string> = {}) {
      chunkFaults.push({ kind: "fail", answer: googleError(status, reason, reason, headers) });
    },
    dropAfterStoringNextChunk() {
      chunkFaults.push({ kind: "drop" });
    },
    /** After `after` chunks taken, the session of the next chunk PUT is forgotten (expired at YouTube): that PUT and every later call to it answer 404. */
    forgetSessionAtNextChunk(after = 0) {
      for (let i = 0; i < after; i++) chunkFaults.push({ kind: "pass" });
      chunkFaults.push({ kind: "forget" });
    },
  };
}

export type YouTubeApiPeer = Awaited<ReturnType<typeof startYouTubeApi>>;
