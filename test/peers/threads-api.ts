import { threadsLength } from "../../lib/platforms/threads/text";
import { faultQueue, formOf, mountOAuth, newToken, startServer, tokenRegistry } from "./stand-in-kit";

/**
 * A TEST DOUBLE of the Threads API (graph.threads.net, v1.0), written from Meta's public Threads API
 * reference (developers.facebook.com/docs/threads: "Posts" (single thread posts, carousel posts, media
 * specifications), "Reference: Publishing" POST /{threads-user-id}/threads and /threads_publish, "Media
 * container status", "Retrieve and manage replies" (reply_to_id, GET /{threads-user-id}/replies), "Reference:
 * Media retrieval" GET /{threads-user-id}/threads, "Reference: User" GET /me, "Reposts" POST /{media-id}/repost,
 * and the Graph API error and rate-limit pages). Threads cannot run here; this answers what Herald calls:
 *
 * - POST /v1.0/{user-id}/threads (form): `media_type` TEXT | IMAGE | CAROUSEL, `text` (at most 500 characters,
 *   emoji as their UTF-8 bytes), `image_url` (fetched at once, as Threads fetches it: unreachable → 400),
 *   `alt_text`, `is_carousel_item`, `children`, `reply_to_id` (a published post) → `{id}` of a container.
 * - GET /v1.0/{container-id}?fields=status → `{id, status: "FINISHED"}`; POST /v1.0/{user-id}/threads_publish
 *   `creation_id` → `{id}` of the post (a container publishes once).
 * - GET /v1.0/{user-id}/threads (top-level posts) and /replies (with `replied_to`), newest first, `limit`;
 *   GET /v1.0/{media-id}?fields=permalink; GET /v1.0/me; POST /v1.0/{media-id}/repost → `{id}` (the account's
 *   reposts are among its threads as REPOST_FACADE with `reposted_post`).
 * - GET /v1.0/{user-id}/threads_insights?metric=followers_count (`total_value`), GET /v1.0/{media-id}/insights
 *   ?metric=views,likes,replies,reposts (`values[0].value`, own posts only); /threads pages by the `after` cursor.
 * - 401 `{error: {type: "OAuthException", code: 190}}` for an unknown or expired token (Authorization: Bearer).
 * - With `oauth`, Threads' token endpoints at Threads' paths (GET /oauth/authorize, POST /oauth/access_token, the
 *   long-lived exchange GET /access_token and GET /refresh_access_token), served by test/peers/oauth-server.ts.
 *
 * Faults (test/peers/stand-in-kit.ts) apply to threads_publish. A rate limit as Graph sends it: 429 with
 * `{error: {code: 4}}` and `x-business-use-case-usage` carrying `estimated_time_to_regain_access` in minutes
 * (`rateLimitNext`; it adds a standard Retry-After in seconds, which Meta does not document for Threads, so that
 * the exact reset time can be checked: the adapter prefers Retry-After and reads the minutes otherwise).
 */

export interface ThreadsUser {
  id: string;
  username: string;
}

interface Container {
  id: string;
  ownerId: string;
  mediaType: string;
  text: string | null;
  replyTo: string | null;
  image: { url: string; bytes: Uint8Array; alt: string | null } | null;
  children: string[];
  carouselItem: boolean;
  published: string | null;
}

export interface ThreadsStoredPost {
  id: string;
  ownerId: string;
  text: string | null;
  replyTo: string | null;
  images: { url: string; bytes: Uint8Array; alt: string | null }[];
  permalink: string;
  timestamp: string;
}

export async function startThreadsApi(opts: { oauth?: { clientId: string; clientSecret: string } } = {}) {
  const users: ThreadsUser[] = [];
  const containers = new Map<string, Container>();
  const posts: ThreadsStoredPost[] = [];
  const reposts: { userId: string; mediaId: string; id: string; timestamp: string }[] = [];
  const tokens = tokenRegistry<ThreadsUser>();
  const faults = faultQueue();
  /** Users whose publish Threads did without ever answering (hangNext). */
  const hung: string[] = [];
  const insights = new Map<string, { views: number; likes: number; replies: number; reposts: number; quotes: number }>();
  const followers = new Map<string, number>();
  const oauth = opts.oauth
    ? mountOAuth(tokens, {
        ...opts.oauth,
        paths: { authorize: "/oauth/authorize", token: "/oauth/access_token", exchange: "/access_token", refresh: "/refresh_access_token" },
        clientAuth: "body",
        // Threads' long-lived tokens last 60 days ("Long-Lived Tokens"); Herald refreshes them only near the end.
        accessTokenTtlSeconds: 60 * 86_400,
      })
    : null;
  let seq = 17_840_000_000_000_000n;
  const nextId = () => String(seq++);

  const server = await startServer(async (req, send) => {
    const fail = (status: number, message: string, code = 100, headers: Record<string, string> = {}) =>
      send(status, { error: { message, type: code === 190 ? "OAuthException" : "THApiException", code, fbtrace_id: "stand-in" } }, headers);
    if (oauth && (await oauth.answer(req, send))) return;
    const me = tokens.accountOf(req.headers);
    if (!me) return fail(401, "Error validating access token: the session is invalid or has expired.", 190);
    const path = req.path.replace(/^\/v1\.0/, "");
    if (path === req.path) return fail(400, "Unknown API version", 2635);
    const params =
      req.method === "POST"
        ? new URLSearchParams(Object.fromEntries(((await formOf(req)) ?? new FormData()).entries() as Iterable<[string, string]>))
        : req.query;
    const ofUser = (id: string) => (id === "me" ? me.id : id);

    if (req.method === "GET" && path === "/me")
      return send(200, { id: me.id, username: me.username, threads_profile_picture_url: `https://scontent.example/${me.id}.jpg` });

    const edge = /^\/([^/]+)\/(threads|threads_publish|replies|repost)$/.exec(path);
    if (edge && edge[2] !== "repost" && ofUser(edge[1]) !== me.id) return fail(403, "Permission denied for this user", 10);

    if (req.method === "POST" && edge?.[2] === "threads") {
      const mediaType = params.get("media_type") ?? "";
      const text = params.get("text");
      if (!["TEXT", "IMAGE", "CAROUSEL"].includes(mediaType)) return fail(400, "Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}");
      if (mediaType === "TEXT" && !text) return fail(400, "Param text is required for TEXT posts");
      if (text && threadsLength(text) > 500) return fail(400, "Param text must be at most 500 characters long.");
      const replyTo = params.get("reply_to_id");
      if (replyTo && !posts.some((p) => p.id === replyTo)) return fail(400, "The reply_to_id post does not exist", 100);
      let image: Container["image"] = null;
      if (mediaType === "IMAGE") {
        const url = params.get("image_url");
        if (!url) return fail(400, "Param image_url is required for IMAGE posts");
        const got = await fetch(url).catch(() => null);
        if (!got?.ok) return fail(400, "The media could not be fetched from this URI", 2207052);
        image = { url, bytes: new Uint8Array(await got.arrayBuffer()), alt: params.get("alt_text") };
      }
      const children = (params.get("children") ?? "").split(",").filter(Boolean);
      if (mediaType === "CAROUSEL" && (children.length < 2 || children.some((c) => !containers.get(c)?.carouselItem)))
        return fail(400, "A carousel needs 2 to 20 carousel item containers as children");
      const id = nextId();
      containers.set(id, {
        id,
        ownerId: me.id,
        mediaType,
        text,
        replyTo,
        image,
        children,
        carouselItem: params.get("is_carousel_item") === "true",
        published: null,
      });
      return send(200, { id });
    }
    if (req.method === "POST" && edge?.[2] === "threads_publish") {
      const container = containers.get(params.get("creation_id") ?? "");
      if (!container || container.ownerId !== me.id || container.carouselItem) return fail(400, "Invalid creation_id", 24);
      const fault = faults.take();
      if (fault && !fault.hang)
        return fail(
          fault.status,
          fault.status === 429 ? "Application request limit reached" : "An unexpected error has occurred.",
          fault.status === 429 ? 4 : 2,
          fault.headers,
        );
      if (container.published) return fail(400, "The media container has already been published", 24);
      if (fault?.hang && fault.afterStoring === false) return;
      const id = nextId();
      container.published = id;
      const images = container.image ? [container.image] : container.children.map((c) => containers.get(c)!.image!).filter(Boolean);
      posts.push({
        id,
        ownerId: me.id,
        text: container.text,
        replyTo: container.replyTo,
        images,
        permalink: `https://www.threads.net/@${me.username}/post/${id}`,
        timestamp: new Date().toISOString(),
      });
      if (fault?.hang) return void hung.push(me.id);
      return send(200, { id });
    }
    if (req.method === "GET" && (edge?.[2] === "threads" || edge?.[2] === "replies")) {
      const limit = Math.min(100, Number(params.get("limit") ?? 25));
      const own = posts
        .filter((p) => p.ownerId === me.id && (edge[2] === "replies") === (p.replyTo !== null))
        .map((p) => ({
          id: p.id,
          media_type: p.images.length > 1 ? "CAROUSEL_ALBUM" : p.images.length ? "IMAGE" : "TEXT_POST",
          text: p.text ?? undefined,
          permalink: p.permalink,
          timestamp: p.timestamp,
          ...(p.replyTo ? { replied_to: { id: p.replyTo } } : {}),
        }));
      // The account's reposts are among its threads, as REPOST_FACADE naming the reposted post.
      const facades =
        edge[2] === "threads"
          ? reposts
              .filter((r) => r.userId === me.id)
              .map((r) => ({ id: r.id, media_type: "REPOST_FACADE", reposted_post: { id: r.mediaId }, timestamp: r.timestamp }))
          : [];
      const all = [...own, ...facades].sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
      // Cursor paging as Graph does it: `after` names the last item of the page before.
      const after = params.get("after");
      const start = after ? all.findIndex((p) => `c${p.id}` === after) + 1 : 0;
      const list = all.slice(start, start + limit);
      const more = start + limit < all.length;
      const paging = list.length ? { cursors: { before: `c${list[0].id}`, after: `c${list.at(-1)!.id}` }, ...(more ? { next: "more" } : {}) } : {};
      return send(200, { data: list, paging });
    }
    if (req.method === "POST" && edge?.[2] === "repost") {
      if (!posts.some((p) => p.id === edge[1])) return fail(400, "Media does not exist", 100);
      const existing = reposts.find((r) => r.userId === me.id && r.mediaId === edge[1]);
      const id = existing?.id ?? nextId();
      if (!existing) reposts.push({ userId: me.id, mediaId: edge[1], id, timestamp: new Date().toISOString() });
      return send(200, { id });
    }
    if (req.method === "GET" && edge === null && /^\/[^/]+\/threads_insights$/.test(path)) {
      const count = followers.get(me.id) ?? 0;
      return send(200, {
        data: [
          { name: "followers_count", period: "day", title: "followers_count", total_value: { value: count }, id: `${me.id}/insights/followers_count/day` },
        ],
      });
    }
    const mediaInsights = /^\/([^/]+)\/insights$/.exec(path);
    if (req.method === "GET" && mediaInsights) {
      const post = posts.find((p) => p.id === mediaInsights[1]);
      if (!post || post.ownerId !== me.id) return fail(400, "Insights are available only for your own posts", 10);
      const c = insights.get(post.id) ?? { views: 0, likes: 0, replies: 0, reposts: 0, quotes: 0 };
      const wanted = (params.get("metric") ?? "").split(",").filter((m): m is keyof typeof c => m in c);
      return send(200, {
        data: wanted.map((name) => ({ name, period: "lifetime", values: [{ value: c[name] }], title: name, id: `${post.id}/insights/${name}/lifetime` })),
      });
    }
    const node = /^\/([^/]+)$/.exec(path);
    if (req.method === "GET" && node) {
      const container = containers.get(node[1]);
      if (container) return send(200, { id: container.id, status: container.published ? "PUBLISHED" : "FINISHED" });
      const post = posts.find((p) => p.id === node[1]);
      if (post) return send(200, { id: post.id, permalink: post.permalink, text: post.text ?? undefined });
    }
    return fail(400, `Unsupported ${req.method} request to ${req.path}`, 100);
  });

  return {
    url: server.url,
    stop: server.stop,
    posts,
    reposts,
    addAccount(username = `threadsuser${users.length + 1}`) {
      const user = { id: nextId(), username };
      users.push(user);
      const token = newToken("thtok");
      tokens.issue(token, user);
      return { id: user.id, username, token };
    },
    issueToken(userId: string, token = newToken("thtok")) {
      tokens.issue(token, users.find((u) => u.id === userId)!);
      return token;
    },
    expireToken: tokens.expire,
    expireTokensOf: (userId: string) => tokens.expireAll(users.find((u) => u.id === userId)!),
    oauth,
    hung,
    connectNext: (userId: string) => oauth?.connectAs(users.find((u) => u.id === userId)!),
    tokensOf: (userId: string) => tokens.tokensOf(users.find((u) => u.id === userId)!),
    failNext: faults.failNext,
    hangNext: faults.hangNext,
    /** The next n publishes answer as Graph does at a rate limit, access coming back at `resetAt` (whole minutes). */
    rateLimitNext(n: number, resetAt: Date) {
      const minutes = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 60_000));
      const usage = {
        [String(users[0]?.id ?? "0")]: [{ type: "threads", call_count: 100, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: minutes }],
      };
      // Graph's usage header says whole minutes; Retry-After (HTTP's own) carries the exact second.
      const seconds = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000));
      faults.failNext(n, 429, { "x-business-use-case-usage": JSON.stringify(usage), "retry-after": String(seconds) });
    },
    postsOf: (userId: string) => posts.filter((p) => p.ownerId === userId),
    setFollowers: (userId: string, n: number) => followers.set(userId, n),
    setInsights: (mediaId: string, c: { views: number; likes: number; replies?: number; reposts?: number }) =>
      insights.set(mediaId, { replies: 0, reposts: 0, quotes: 0, ...c }),
  };
}

export type ThreadsApiPeer = Awaited<ReturnType<typeof startThreadsApi>>;
