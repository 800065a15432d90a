import { faultQueue, formOf, mountOAuth, newToken, startServer, tokenRegistry } from "./stand-in-kit";

/**
 * A TEST DOUBLE of Meta's Graph API (graph.facebook.com, v21.0) for Facebook Pages and Instagram professional
 * accounts, written from Meta's public reference (developers.facebook.com/docs: "Facebook Login: Manually Build a
 * Login Flow" and "Long-Lived Access Tokens" (fb_exchange_token), "Graph API Reference: User /accounts" (the
 * user's Pages with their Page access tokens and `instagram_business_account`), "Pages API: Posts" (POST
 * /{page-id}/feed with `message` and `attached_media`, GET /{page-id}/published_posts), "Page Photos" (POST
 * /{page-id}/photos with `url`, `caption`, `published`, `alt_text_custom`), "Instagram Platform: Content
 * Publishing" (POST /{ig-user-id}/media with `image_url`, `caption`, `alt_text`, `is_carousel_item`,
 * `media_type=CAROUSEL` and `children`, `media_type=REELS` with `video_url`; GET /{container-id}?fields=status_code,status;
 * POST /{ig-user-id}/media_publish `creation_id`; GET /{ig-user-id}/media), and the Graph API error and rate-limit
 * pages). Meta cannot run here; this answers what Herald calls.
 *
 * Like Meta, it FETCHES every `url`/`image_url`/`video_url` it is given when the photo or container is created
 * (unreachable → 400, code 9004 / 2207052) and keeps the bytes, so a test proves Herald's signed media URL works.
 * A REELS container reports `status_code` IN_PROGRESS for its first `reelPolls` looks, then FINISHED (or, when a
 * test asked for it, ERROR with the reason in `status`); media_publish of a container not FINISHED is refused
 * (code 9007, "Media ID is not available"), as Meta does.
 * Analytics, from "Page" (`followers_count`), "Page Posts" (GET /{page-id}/posts with `reactions.summary(total_count)`,
 * `comments.summary(total_count)` and `shares`, which Graph leaves out when a post has none or withholds it), "IG User"
 * (`followers_count`), "IG User Media" (`like_count`, absent when the owner hides likes, and `comments_count`) and
 * "IG Media Insights" (GET /{ig-media-id}/insights?metric=views,reach: an empty `data` when Instagram has nothing to
 * give, error code 10 "Not enough viewers for the media to show insights"); lists paged by `paging.cursors.after`
 * with `paging.next` present while more remain.
 * Tokens: the OAuth code gives a short user token, fb_exchange_token (GET /v21.0/oauth/access_token) a
 * long-lived one; GET /me/accounts gives each Page's token. Page calls need the Page's token; Instagram calls
 * the token of the Page the Instagram account is linked to. 401 `{error: {type: "OAuthException", code: 190}}`
 * for an unknown or expired token. Faults (stand-in-kit) apply to the calls that make a post: a published
 * photo, a feed post, media_publish.
 */

export interface MetaUser {
  id: string;
  name: string;
}

export interface MetaPage {
  id: string;
  name: string;
  ownerId: string;
  token: string;
  ig: { id: string; username: string } | null;
}

/** A post's counts as Graph gives them; an absent one is left out of the answer (withheld, or none). */
export interface MetaCounts {
  reactions?: number;
  comments?: number;
  shares?: number;
  likes?: number;
  /** Instagram media insights; `not_enough_viewers` answers error code 10, `{}` an empty data set. */
  insights?: { views?: number; reach?: number } | "not_enough_viewers";
}

type Actor = { user: MetaUser; page: MetaPage | null };

interface Photo {
  id: string;
  url: string;
  bytes: Uint8Array;
  alt: string | null;
}

export interface MetaStoredPost {
  id: string;
  /** The Page's id, or the Instagram account's. */
  ownerId: string;
  text: string;
  images: Photo[];
  /** A Reel's video, as fetched from its `video_url`. */
  video: Uint8Array | null;
  permalink: string;
  timestamp: string;
  counts?: MetaCounts;
}

interface IgContainer {
  id: string;
  ownerId: string;
  caption: string;
  images: Photo[];
  carouselItem: boolean;
  published: string | null;
  video: Uint8Array | null;
  /** A REELS container: looks at its status so far, and how it ends. */
  reel: { polls: number; until: number; fails: string | null } | null;
}

export async function startMetaGraphApi(opts: { oauth?: { clientId: string; clientSecret: string }; reelPolls?: number } = {}) {
  const users: MetaUser[] = [];
  const pages: MetaPage[] = [];
  const posts: MetaStoredPost[] = [];
  const photos = new Map<string, Photo>();
  const containers = new Map<string, IgContainer>();
  const tokens = tokenRegistry<Actor>();
  const faults = faultQueue();
  const hung: string[] = [];
  let exchanges = 0;
  let reelPolls = opts.reelPolls ?? 1;
  const followers = new Map<string, number>();
  /** Answers given once instead of the real one, to the next GET whose path matches (a malformed answer). */
  const overrides: { path: RegExp; body: unknown }[] = [];
  /** Pages whose token lacks instagram_manage_insights: media insights answer Graph's permission error (code 10). */
  const insightsRefused = new Set<string>();
  /** Graph's paging: `after` is an opaque cursor (here the offset), `next` present while more remain. */
  function paged<T>(list: T[], params: URLSearchParams, max: number) {
    const limit = Math.min(max, Number(params.get("limit") ?? 25));
    const start = params.get("after") ? Number(Buffer.from(params.get("after")!, "base64url").toString()) : 0;
    const data = list.slice(start, start + limit);
    const end = start + data.length;
    const cursor = (n: number) => Buffer.from(String(n)).toString("base64url");
    return {
      data,
      paging: {
        cursors: { before: cursor(start), after: cursor(end) },
        ...(end < list.length ? { next: `${server.url}/v21.0/next?after=${cursor(end)}` } : {}),
      },
    };
  }
  const newestFirst = (ownerId: string) =>
    posts
      .filter((p) => p.ownerId === ownerId)
      .reverse()
      .sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  const wants = (params: URLSearchParams, field: string) => (params.get("fields") ?? "").includes(field);
  const reelFailures: string[] = [];
  const oauth = opts.oauth
    ? mountOAuth(tokens, {
        ...opts.oauth,
        // The fb_exchange_token GET shares the token endpoint's path; this double answers it itself (below).
        paths: { authorize: "/v21.0/dialog/oauth", token: "/v21.0/oauth/access_token", exchange: "/unused/exchange", refresh: "/unused/refresh" },
        clientAuth: "body",
        issueRefreshTokens: false,
        // A short-lived user token from the code lasts about an hour.
        accessTokenTtlSeconds: 3600,
      })
    : null;
  let seq = 100_000_000_000_000n;
  const nextId = () => String(seq++);

  async function fetched(url: string | null): Promise<Uint8Array | null> {
    if (!url) return null;
    const got = await fetch(url).catch(() => null);
    return got?.ok ? new Uint8Array(await got.arrayBuffer()) : null;
  }

  /** A fault for a call that makes a post: answered here, a hang (the caller stores, then never answers), or none. */
  function faultFor(fail: (status: number, message: string, code: number, headers?: Record<string, string>) => void) {
    const fault = faults.take();
    if (fault && !fault.hang) {
      fail(
        fault.status,
        fault.status === 429 ? "Application request limit reached" : "An unexpected error has occurred.",
        fault.status === 429 ? 4 : 2,
        fault.headers,
      );
      return "answered";
    }
    return fault?.hang ? "hang" : "none";
  }

  const server = await startServer(async (req, send) => {
    const fail = (status: number, message: string, code = 100, headers: Record<string, string> = {}) =>
      send(status, { error: { message, type: code === 190 ? "OAuthException" : "GraphMethodException", code, fbtrace_id: "stand-in" } }, headers);
    const path = req.path.replace(/^\/v21\.0/, "");
    if (path === req.path) return fail(400, "Unknown API version", 2635);
    // "Long-Lived Access Tokens": GET /oauth/access_token?grant_type=fb_exchange_token&client_id&client_secret&fb_exchange_token.
    if (req.method === "GET" && path === "/oauth/access_token" && req.query.get("grant_type") === "fb_exchange_token") {
      if (!opts.oauth || req.query.get("client_id") !== opts.oauth.clientId || req.query.get("client_secret") !== opts.oauth.clientSecret)
        return fail(400, "Error validating client secret.", 1);
      const actor = tokens.accountOf({ authorization: `Bearer ${req.query.get("fb_exchange_token") ?? ""}` });
      if (!actor || actor.page) return fail(400, "Invalid OAuth access token.", 190);
      exchanges++;
      const long = newToken("fblong");
      tokens.issue(long, { user: actor.user, page: null });
      return send(200, { access_token: long, token_type: "bearer", expires_in: 60 * 86_400 });
    }
    if (oauth && (await oauth.answer(req, send))) return;
    const actor = tokens.accountOf(req.headers);
    if (!actor) return fail(401, "Error validating access token: the session is invalid or has expired.", 190);
    const params =
      req.method === "POST"
        ? new URLSearchParams(Object.fromEntries(((await formOf(req)) ?? new FormData()).entries() as Iterable<[string, string]>))
        : req.query;

    const override = req.method === "GET" ? overrides.findIndex((o) => o.path.test(path)) : -1;
    if (override >= 0) return send(200, overrides.splice(override, 1)[0].body);

    if (req.method === "GET" && path === "/me/accounts") {
      if (actor.page) return fail(400, "(#100) Tried accessing nonexisting field (accounts) on node type (Page)", 100);
      const data = pages
        .filter((p) => p.ownerId === actor.user.id)
        .map((p) => ({
          id: p.id,
          name: p.name,
          access_token: p.token,
          category: "Brand",
          picture: { data: { url: `https://scontent.example/${p.id}.jpg` } },
          ...(p.ig
            ? { instagram_business_account: { id: p.ig.id, username: p.ig.username, profile_picture_url: `https://scontent.example/${p.ig.id}.jpg` } }
            : {}),
        }));
      return send(200, { data, paging: { cursors: { before: "b", after: "a" } } });
    }

    const pageEdge = /^\/([^/]+)\/(feed|photos|published_posts|posts)$/.exec(path);
    if (pageEdge) {
      const page = pages.find((p) => p.id === pageEdge[1]);
      if (!page || actor.page !== page) return fail(403, "(#200) The user hasn't authorized the application to perform this action", 200);
      if (req.method === "POST" && pageEdge[2] === "photos") {
        const url = params.get("url");
        const bytes = await fetched(url);
        if (!url || !bytes) return fail(400, "(#324) Missing or invalid image file", 324);
        const published = params.get("published") !== "false";
        const photo = { id: nextId(), url, bytes, alt: params.get("alt_text_custom") };
        if (!published) {
          photos.set(photo.id, photo);
          return send(200, { id: photo.id });
        }
        const f = faultFor(fail);
        if (f === "answered") return;
        const id = `${page.id}_${nextId()}`;
        posts.push({
          id,
          ownerId: page.id,
          text: params.get("caption") ?? "",
          images: [photo],
          video: null,
          permalink: `https://www.facebook.com/${id}`,
          timestamp: new Date().toISOString(),
        });
        if (f === "hang") return void hung.push(page.id);
        return send(200, { id: photo.id, post_id: id });
      }
      if (req.method === "POST" && pageEdge[2] === "feed") {
        const attached: Photo[] = [];
        for (let i = 0; params.has(`attached_media[${i}]`); i++) {
          const fbid = (JSON.parse(params.get(`attached_media[${i}]`) ?? "{}") as { media_fbid?: string }).media_fbid;
          const photo = photos.get(fbid ?? "");
          if (!photo) return fail(400, "(#100) Invalid attached_media", 100);
          attached.push(photo);
        }
        const message = params.get("message") ?? "";
        if (!message && !attached.length && !params.get("link")) return fail(400, "(#100) The post is empty", 100);
        if (message.length > 63_206) return fail(400, "(#100) The message is too long", 100);
        const f = faultFor(fail);
        if (f === "answered") return;
        const id = `${page.id}_${nextId()}`;
        for (const p of attached) photos.delete(p.id);
        posts.push({
          id,
          ownerId: page.id,
          text: message,
          images: attached,
          video: null,
          permalink: `https://www.facebook.com/${id}`,
          timestamp: new Date().toISOString(),
        });
        if (f === "hang") return void hung.push(page.id);
        return send(200, { id });
      }
      if (req.method === "GET" && pageEdge[2] === "posts") {
        const out = paged(newestFirst(page.id), params, 100);
        return send(200, {
          ...out,
          data: out.data.map((p) => ({
            id: p.id,
            created_time: p.timestamp.replace(/\.\d{3}Z$/, "+0000"),
            ...(p.text ? { message: p.text } : {}),
            permalink_url: p.permalink,
            ...(wants(params, "reactions") ? { reactions: { data: [], summary: { total_count: p.counts?.reactions ?? 0, viewer_reaction: "NONE" } } } : {}),
            ...(wants(params, "comments")
              ? { comments: { data: [], summary: { order: "ranked", total_count: p.counts?.comments ?? 0, can_comment: true } } }
              : {}),
            // Graph leaves `shares` out when there are none to show.
            ...(wants(params, "shares") && p.counts?.shares !== undefined ? { shares: { count: p.counts.shares } } : {}),
          })),
        });
      }
      if (req.method === "GET" && pageEdge[2] === "published_posts") {
        const limit = Math.min(100, Number(params.get("limit") ?? 25));
        const data = posts
          .filter((p) => p.ownerId === page.id)
          .reverse()
          .slice(0, limit)
          .map((p) => ({ id: p.id, message: p.text || undefined, permalink_url: p.permalink, created_time: p.timestamp }));
        return send(200, { data });
      }
    }

    const igEdge = /^\/([^/]+)\/(media|media_publish)$/.exec(path);
    if (igEdge) {
      const page = pages.find((p) => p.ig?.id === igEdge[1]);
      if (!page || actor.page !== page) return fail(403, "(#10) Application does not have permission for this action", 10);
      const igId = igEdge[1];
      if (req.method === "POST" && igEdge[2] === "media") {
        const caption = params.get("caption") ?? "";
        if (caption.length > 2200) return fail(400, "(#100) The caption is too long", 100);
        if ((caption.match(/#[\p{L}\p{N}_]+/gu) ?? []).length > 30) return fail(400, "(#100) Too many hashtags", 100);
        const carouselItem = params.get("is_carousel_item") === "true";
        let images: Photo[] = [];
        let video: Uint8Array | null = null;
        let reel: IgContainer["reel"] = null;
        if (params.get("media_type") === "REELS") {
          // Meta fetches the video (here at once) and processes it over the next polls.
          const bytes = await fetched(params.get("video_url"));
          if (!bytes) return fail(400, "The media could not be fetched from this URI", 9004);
          video = bytes;
          reel = { polls: 0, until: reelPolls, fails: reelFailures.shift() ?? null };
        } else if (params.get("media_type") === "CAROUSEL") {
          const children = (params.get("children") ?? "")
            .split(",")
            .filter(Boolean)
            .map((c) => containers.get(c));
          if (children.length < 2 || children.length > 10 || children.some((c) => !c?.carouselItem))
            return fail(400, "(#100) A carousel needs 2 to 10 items", 100);
          images = children.flatMap((c) => c!.images);
        } else {
          const url = params.get("image_url");
          if (params.get("media_type") || params.get("video_url"))
            return fail(400, "(#100) media_type must be CAROUSEL or REELS for this double, or absent for an image", 100);
          const bytes = await fetched(url);
          if (!url || !bytes) return fail(400, "The media could not be fetched from this URI", 9004);
          images = [{ id: nextId(), url, bytes, alt: params.get("alt_text") }];
        }
        const id = nextId();
        containers.set(id, { id, ownerId: igId, caption, images, carouselItem, published: null, video, reel });
        return send(200, { id });
      }
      if (req.method === "POST" && igEdge[2] === "media_publish") {
        const container = containers.get(params.get("creation_id") ?? "");
        if (!container || container.ownerId !== igId || container.carouselItem) return fail(400, "(#100) Invalid creation_id", 100);
        if (container.reel && (container.reel.fails || container.reel.polls <= container.reel.until)) return fail(400, "Media ID is not available", 9007);
        const f = faultFor(fail);
        if (f === "answered") return;
        if (container.published) return fail(400, "(#9007) The media has already been published", 9007);
        const id = nextId();
        container.published = id;
        posts.push({
          id,
          ownerId: igId,
          text: container.caption,
          images: container.images,
          video: container.video,
          permalink: container.reel ? `https://www.instagram.com/reel/${id}/` : `https://www.instagram.com/p/${id}/`,
          timestamp: new Date().toISOString(),
        });
        if (f === "hang") return void hung.push(igId);
        return send(200, { id });
      }
      if (req.method === "GET" && igEdge[2] === "media") {
        const out = paged(newestFirst(igId), params, 100);
        return send(200, {
          ...out,
          data: out.data.map((p) => ({
            id: p.id,
            caption: p.text || undefined,
            permalink: p.permalink,
            media_type: p.video ? "VIDEO" : p.images.length > 1 ? "CAROUSEL_ALBUM" : "IMAGE",
            timestamp: p.timestamp.replace(/\.\d{3}Z$/, "+0000"),
            // Left out when the owner hides like counts.
            ...(wants(params, "like_count") && p.counts?.likes !== undefined ? { like_count: p.counts.likes } : {}),
            ...(wants(params, "comments_count") ? { comments_count: p.counts?.comments ?? 0 } : {}),
          })),
        });
      }
    }

    const insightsOf = /^\/([^/]+)\/insights$/.exec(path);
    if (req.method === "GET" && insightsOf) {
      const post = posts.find((p) => p.id === insightsOf[1]);
      const page = pages.find((p) => p.ig?.id === post?.ownerId);
      if (!post || !page || actor.page !== page) return fail(400, `Unsupported get request. Object with ID '${insightsOf[1]}' does not exist`, 100);
      if (insightsRefused.has(page.id)) return fail(400, "(#10) Application does not have permission for this action", 10);
      const insights = post.counts?.insights ?? {};
      if (insights === "not_enough_viewers") return fail(400, "(#10) Not enough viewers for the media to show insights", 10);
      const metrics = (params.get("metric") ?? "").split(",").filter(Boolean);
      if (!metrics.length) return fail(400, "(#100) The parameter metric is required", 100);
      const bad = metrics.find((m) => !["views", "reach", "likes", "comments", "shares", "saved", "total_interactions"].includes(m));
      if (bad) return fail(400, `(#100) metric[0] must be one of the following values: views, reach, likes, comments, shares, saved, total_interactions`, 100);
      // Data Instagram does not have (yet) is left out: an empty set, never 0.
      const data = metrics
        .filter((m) => (insights as Record<string, number | undefined>)[m] !== undefined)
        .map((m) => ({
          name: m,
          period: "lifetime",
          values: [{ value: (insights as Record<string, number>)[m] }],
          title: m,
          description: m,
          id: `${post.id}/insights/${m}/lifetime`,
        }));
      return send(200, { data });
    }

    const node = /^\/([^/]+)$/.exec(path);
    if (req.method === "GET" && node) {
      const page = pages.find((p) => p.id === node[1]);
      if (page && actor.page === page)
        return send(200, {
          id: page.id,
          name: page.name,
          picture: { data: { url: `https://scontent.example/${page.id}.jpg` } },
          ...(wants(params, "followers_count") && followers.has(page.id) ? { followers_count: followers.get(page.id) } : {}),
        });
      const igPage = pages.find((p) => p.ig?.id === node[1]);
      if (igPage?.ig && actor.page === igPage)
        return send(200, {
          id: igPage.ig.id,
          username: igPage.ig.username,
          profile_picture_url: `https://scontent.example/${igPage.ig.id}.jpg`,
          ...(wants(params, "followers_count") && followers.has(igPage.ig.id) ? { followers_count: followers.get(igPage.ig.id) } : {}),
        });
      const container = containers.get(node[1]);
      if (container) {
        if (container.published) return send(200, { id: container.id, status_code: "PUBLISHED", status: "Published" });
        const reel = container.reel;
        if (!reel) return send(200, { id: container.id, status_code: "FINISHED", status: "Finished" });
        reel.polls++;
        if (reel.polls <= reel.until) return send(200, { id: container.id, status_code: "IN_PROGRESS", status: "In Progress" });
        if (reel.fails) return send(200, { id: container.id, status_code: "ERROR", status: reel.fails });
        return send(200, { id: container.id, status_code: "FINISHED", status: "Finished" });
      }
      const post = posts.find((p) => p.id === node[1]);
      if (post) return send(200, { id: post.id, permalink: post.permalink });
    }
    return fail(400, `Unsupported ${req.method} request to ${req.path}`, 100);
  });

  return {
    url: server.url,
    stop: server.stop,
    posts,
    hung,
    oauth,
    get exchangeCount() {
      return exchanges;
    },
    /** A Facebook user managing one Page, linked to an Instagram professional account when `instagram`. */
    addUser(o: { instagram?: boolean } = {}) {
      const user = { id: nextId(), name: `Meta user ${users.length + 1}` };
      users.push(user);
      const page: MetaPage = {
        id: nextId(),
        name: `Page ${pages.length + 1}`,
        ownerId: user.id,
        token: newToken("pagetok"),
        ig: o.instagram ? { id: nextId(), username: `iguser${pages.length + 1}` } : null,
      };
      pages.push(page);
      tokens.issue(page.token, { user, page });
      return { user, page };
    },
    /** A user token, as the OAuth flow would give (for calling an adapter directly). */
    issueUserToken(user: MetaUser, token = newToken("fbuser")) {
      tokens.issue(token, { user, page: null });
      return token;
    },
    /** The next OAuth approval is this user's. */
    connectNext: (user: MetaUser) => oauth?.connectAs({ user, page: null }),
    /** The user's Pages' tokens (what Herald keeps) stop working, as when the app is removed. */
    expireTokensOf(userId: string) {
      for (const page of pages.filter((p) => p.ownerId === userId)) tokens.expire(page.token);
    },
    tokensOf(userId: string): string[] {
      return pages.filter((p) => p.ownerId === userId).map((p) => p.token);
    },
    failNext: faults.failNext,
    hangNext: faults.hangNext,
    /** The next n posting calls answer as Graph does at a rate limit, access coming back at `resetAt`. */
    rateLimitNext(n: number, resetAt: Date) {
      const minutes = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 60_000));
      const usage = { "0": [{ type: "pages", call_count: 100, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: minutes }] };
      const seconds = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000));
      faults.failNext(n, 429, { "x-business-use-case-usage": JSON.stringify(usage), "retry-after": String(seconds) });
    },
    postsOf: (ownerId: string) => posts.filter((p) => p.ownerId === ownerId),
    /** A post (Page) or media (Instagram account) already there, `at` its publication time, with its counts. */
    addPost(ownerId: string, text: string, at: Date, counts: MetaCounts = {}) {
      const id = pages.some((p) => p.id === ownerId) ? `${ownerId}_${nextId()}` : nextId();
      const post: MetaStoredPost = {
        id,
        ownerId,
        text,
        images: [],
        video: null,
        permalink: id.includes("_") ? `https://www.facebook.com/${id}` : `https://www.instagram.com/p/${id}/`,
        // Graph's times are to the second.
        timestamp: new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString(),
        counts,
      };
      posts.push(post);
      return post;
    },
    setCounts(postId: string, counts: MetaCounts) {
      const post = posts.find((p) => p.id === postId)!;
      post.counts = { ...post.counts, ...counts };
    },
    /** The Page's token was granted without instagram_manage_insights. */
    refuseInsights(pageId: string) {
      insightsRefused.add(pageId);
    },
    /** The next GET whose path (after the version) matches answers `body` with 200, whatever it is. */
    answerNextGet(path: RegExp, body: unknown) {
      overrides.push({ path, body });
    },
    /** The Page's or Instagram account's followers_count (left out of answers until set). */
    setFollowers(id: string, n: number) {
      followers.set(id, n);
    },
    /** REELS containers made for an Instagram account (published or not). */
    reelContainersOf: (igId: string) => [...containers.values()].filter((c) => c.ownerId === igId && c.reel),
    /** Reels containers report IN_PROGRESS for this many looks before they end. */
    setReelPolls(n: number) {
      reelPolls = n;
    },
    /** The next Reel container created ends ERROR with this `status` (what Instagram says went wrong). */
    failNextReel(status: string) {
      reelFailures.push(status);
    },
  };
}

export type MetaGraphApiPeer = Awaited<ReturnType<typeof startMetaGraphApi>>;
