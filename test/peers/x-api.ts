import { xWeightedLength } from "../../lib/platforms/x/text";
import { faultQueue, formOf, jsonOf, mountOAuth, newToken, startServer, tokenRegistry } from "./stand-in-kit";

/**
 * A TEST DOUBLE of the X API v2, written from X's public API reference (docs.x.com: "Create Post"
 * POST /2/tweets, "User Posts timeline" GET /2/users/{id}/tweets, "User lookup me" GET /2/users/me,
 * "Media upload" POST /2/media/upload, "Create Media metadata" POST /2/media/metadata, "Retweet"
 * POST /2/users/{id}/retweets, the rate-limit headers page). X cannot run here; this answers the calls
 * Herald makes the way those pages describe:
 *
 * - POST /2/tweets `{text, reply: {in_reply_to_tweet_id}, media: {media_ids}}` → 201 `{data: {id, text}}`.
 *   Text over 280 weighted characters → 400; a reply to an unknown post or an unknown media id → 400; the
 *   same text as one of the author's posts (X refuses duplicates) → 403 "You are not allowed to create a
 *   Tweet with duplicate content.".
 * - GET /2/users/{id}/tweets (newest first, `max_results` 5–100, `exclude=retweets`): each post's `text`
 *   with its links wrapped as `https://t.co/…` and `&`, `<`, `>` as HTML entities, `entities.urls` mapping
 *   each wrapped link back, `referenced_tweets` naming the post it replies to, and `public_metrics`.
 * - GET /2/users/me → `{data: {id, name, username, profile_image_url}}`; GET /2/users/{id} with
 *   `public_metrics` (followers_count …); the timeline pages by `pagination_token` from `meta.next_token`.
 * - POST /2/media/upload (multipart `media`, `media_category`) → `{data: {id, media_key}}`;
 *   POST /2/media/metadata `{id, metadata: {alt_text: {text}}}`.
 * - POST /2/users/{id}/retweets `{tweet_id}` → `{data: {retweeted: true}}` (a duplicate retweet is ignored, as X
 *   does); DELETE /2/users/{id}/retweets/{source_tweet_id} → `{data: {retweeted: false}}`.
 * - 401 `{title: "Unauthorized", status: 401}` for an unknown or expired bearer token.
 * - With `oauth`, X's OAuth 2.0 endpoints at X's paths (GET /i/oauth2/authorize, POST /2/oauth2/token; PKCE S256
 *   required, the confidential client by HTTP Basic), served by test/peers/oauth-server.ts.
 *
 * Faults (test/peers/stand-in-kit.ts) apply to POST /2/tweets: a 429 as X sends it carries
 * `x-rate-limit-limit`, `x-rate-limit-remaining: 0` and `x-rate-limit-reset` (epoch seconds), see `rateLimitNext`.
 */

export interface XUser {
  id: string;
  username: string;
}

export interface XStoredPost {
  id: string;
  authorId: string;
  /** The text as posted. */
  posted: string;
  /** The text as X answers it (links wrapped, entities escaped). */
  text: string;
  urls: { url: string; expanded_url: string }[];
  inReplyTo: string | null;
  mediaIds: string[];
  createdAt: string;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export async function startXApi(opts: { oauth?: { clientId: string; clientSecret: string } } = {}) {
  const users: XUser[] = [];
  const posts: XStoredPost[] = [];
  const media = new Map<string, { ownerId: string; mime: string; size: number; bytes: Uint8Array; alt: string | null }>();
  /** Users whose post X stored without ever answering (hangNext). */
  const hung: string[] = [];
  const retweets: { userId: string; tweetId: string }[] = [];
  const postRequests: unknown[] = [];
  const counts = new Map<string, { like_count: number; impression_count: number; quote_count: number }>();
  const followers = new Map<string, number>();
  const tokens = tokenRegistry<XUser>();
  const faults = faultQueue();
  const oauth = opts.oauth
    ? mountOAuth(tokens, {
        ...opts.oauth,
        paths: { authorize: "/i/oauth2/authorize", token: "/2/oauth2/token" },
        clientAuth: "basic",
        requirePkce: true,
      })
    : null;
  let seq = 1_800_000_000_000_000_000n;
  const nextId = () => String(seq++);

  function store(author: XUser, text: string, inReplyTo: string | null, mediaIds: string[]): XStoredPost {
    const urls: { url: string; expanded_url: string }[] = [];
    const wrapped = escapeHtml(text).replace(/https?:\/\/[^\s<>"]+/g, (found) => {
      const expanded = found.replace(/&amp;/g, "&");
      const url = `https://t.co/${(seq++).toString(36)}`;
      urls.push({ url, expanded_url: expanded });
      return url;
    });
    const post = { id: nextId(), authorId: author.id, posted: text, text: wrapped, urls, inReplyTo, mediaIds, createdAt: new Date().toISOString() };
    posts.push(post);
    return post;
  }

  const view = (p: XStoredPost) => ({
    id: p.id,
    text: p.text,
    author_id: p.authorId,
    created_at: p.createdAt,
    edit_history_tweet_ids: [p.id],
    ...(p.inReplyTo ? { referenced_tweets: [{ type: "replied_to", id: p.inReplyTo }] } : {}),
    ...(p.urls.length
      ? { entities: { urls: p.urls.map((u, i) => ({ start: i, end: i, url: u.url, expanded_url: u.expanded_url, display_url: u.expanded_url })) } }
      : {}),
    public_metrics: {
      retweet_count: retweets.filter((r) => r.tweetId === p.id).length,
      reply_count: posts.filter((r) => r.inReplyTo === p.id).length,
      like_count: counts.get(p.id)?.like_count ?? 0,
      quote_count: counts.get(p.id)?.quote_count ?? 0,
      impression_count: counts.get(p.id)?.impression_count ?? 0,
    },
  });

  const server = await startServer(async (req, send) => {
    const problem = (status: number, title: string, detail: string) => send(status, { title, detail, type: "about:blank", status });
    if (oauth && (await oauth.answer(req, send))) return;
    const me = tokens.accountOf(req.headers);
    if (!me) return problem(401, "Unauthorized", "Unauthorized");

    if (req.method === "GET" && req.path === "/2/users/me") {
      return send(200, { data: { id: me.id, name: me.username, username: me.username, profile_image_url: `https://pbs.example/${me.id}_normal.jpg` } });
    }
    const userLookup = /^\/2\/users\/([^/]+)$/.exec(req.path);
    if (req.method === "GET" && userLookup) {
      const user = users.find((u) => u.id === userLookup[1]);
      if (!user) return problem(404, "Not Found Error", "Could not find user");
      const metrics = {
        followers_count: followers.get(user.id) ?? 0,
        following_count: 0,
        tweet_count: posts.filter((p) => p.authorId === user.id).length,
        listed_count: 0,
      };
      return send(200, { data: { id: user.id, name: user.username, username: user.username, public_metrics: metrics } });
    }
    const timeline = /^\/2\/users\/([^/]+)\/tweets$/.exec(req.path);
    if (req.method === "GET" && timeline) {
      const max = Math.min(100, Math.max(5, Number(req.query.get("max_results") ?? 10)));
      // pagination_token: the id of the next (older) post, as an opaque token.
      const from = req.query.get("pagination_token");
      const all = posts.filter((p) => p.authorId === timeline[1]).reverse();
      const start = from
        ? Math.max(
            0,
            all.findIndex((p) => `t${p.id}` === from),
          )
        : 0;
      const list = all.slice(start, start + max);
      const rest = all[start + max];
      return send(
        200,
        list.length
          ? {
              data: list.map(view),
              meta: { result_count: list.length, newest_id: list[0].id, oldest_id: list.at(-1)!.id, ...(rest ? { next_token: `t${rest.id}` } : {}) },
            }
          : { meta: { result_count: 0 } },
      );
    }
    if (req.method === "POST" && req.path === "/2/media/upload") {
      const form = await formOf(req);
      const file = form?.get("media");
      if (!(file instanceof Blob)) return problem(400, "Invalid Request", "One or more parameters to your request was invalid: media");
      const id = nextId();
      media.set(id, { ownerId: me.id, mime: file.type, size: file.size, bytes: new Uint8Array(await file.arrayBuffer()), alt: null });
      return send(200, { data: { id, media_key: `3_${id}`, size: file.size, expires_after_secs: 86400 } });
    }
    if (req.method === "POST" && req.path === "/2/media/metadata") {
      const body = jsonOf(req.raw);
      const item = media.get(String(body?.id));
      if (!item || item.ownerId !== me.id) return problem(400, "Invalid Request", "Media id not found");
      item.alt = body?.metadata?.alt_text?.text ?? null;
      return send(200, { data: { id: body.id, associated_metadata: { alt_text: { text: item.alt } } } });
    }
    const retweet = /^\/2\/users\/([^/]+)\/retweets$/.exec(req.path);
    if (req.method === "POST" && retweet) {
      const body = jsonOf(req.raw);
      if (retweet[1] !== me.id) return problem(403, "Forbidden", "You are not permitted to perform this action.");
      if (!posts.some((p) => p.id === body?.tweet_id)) return problem(400, "Invalid Request", "tweet_id not found");
      if (!retweets.some((r) => r.userId === me.id && r.tweetId === body.tweet_id)) retweets.push({ userId: me.id, tweetId: body.tweet_id });
      return send(200, { data: { retweeted: true } });
    }
    const unretweet = /^\/2\/users\/([^/]+)\/retweets\/([^/]+)$/.exec(req.path);
    if (req.method === "DELETE" && unretweet) {
      if (unretweet[1] !== me.id) return problem(403, "Forbidden", "You are not permitted to perform this action.");
      const at = retweets.findIndex((r) => r.userId === me.id && r.tweetId === unretweet[2]);
      if (at >= 0) retweets.splice(at, 1);
      return send(200, { data: { retweeted: false } });
    }
    if (req.method === "POST" && req.path === "/2/tweets") {
      const body = jsonOf(req.raw);
      postRequests.push(body);
      const fault = faults.take();
      if (fault && !fault.hang)
        return send(fault.status, { title: fault.status === 429 ? "Too Many Requests" : "Service Unavailable", status: fault.status }, fault.headers);
      const text = typeof body?.text === "string" ? body.text : "";
      const mediaIds: string[] = body?.media?.media_ids ?? [];
      if (!text.trim() && mediaIds.length === 0) return problem(400, "Invalid Request", "text or media is required");
      if (xWeightedLength(text) > 280) return problem(400, "Invalid Request", "Your Tweet text is too long.");
      const parent = body?.reply?.in_reply_to_tweet_id ?? null;
      if (parent && !posts.some((p) => p.id === parent)) return problem(400, "Invalid Request", "The Tweet you are replying to does not exist.");
      if (mediaIds.some((id) => media.get(id)?.ownerId !== me.id)) return problem(400, "Invalid Request", "Your media IDs are invalid.");
      if (posts.some((p) => p.authorId === me.id && p.posted === text))
        return problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.");
      if (fault?.hang && fault.afterStoring === false) return;
      const post = store(me, text, parent, mediaIds);
      if (fault?.hang) return void hung.push(me.id);
      return send(201, { data: { id: post.id, text: post.text, edit_history_tweet_ids: [post.id] } });
    }
    return problem(404, "Not Found Error", `No route ${req.method} ${req.path}`);
  });

  return {
    url: server.url,
    stop: server.stop,
    posts,
    media,
    retweets,
    postRequests,
    /** A new account with a fresh access token. */
    addAccount(username = `xuser${users.length + 1}`) {
      const user = { id: nextId(), username };
      users.push(user);
      const token = newToken("xtok");
      tokens.issue(token, user);
      return { id: user.id, username, token };
    },
    /** Another token for an existing account (as an OAuth server would mint one). */
    issueToken(userId: string, token = newToken("xtok")) {
      tokens.issue(token, users.find((u) => u.id === userId)!);
      return token;
    },
    expireToken: tokens.expire,
    /** Every token of the account stops working (revoked, or expired at X). */
    expireTokensOf: (userId: string) => tokens.expireAll(users.find((u) => u.id === userId)!),
    oauth,
    hung,
    /** The next authorization (OAuth) approves this account. */
    connectNext: (userId: string) => oauth?.connectAs(users.find((u) => u.id === userId)!),
    tokensOf: (userId: string) => tokens.tokensOf(users.find((u) => u.id === userId)!),
    failNext: faults.failNext,
    hangNext: faults.hangNext,
    /** The next n posts answer 429 as X does, the window reopening at `resetAt`. */
    rateLimitNext(n: number, resetAt: Date) {
      faults.failNext(n, 429, {
        "x-rate-limit-limit": "100",
        "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": String(Math.floor(resetAt.getTime() / 1000)),
      });
    },
    postsOf: (userId: string) => posts.filter((p) => p.authorId === userId),
    setFollowers: (userId: string, n: number) => followers.set(userId, n),
    setCounts: (tweetId: string, c: { like_count: number; impression_count: number; quote_count?: number }) => counts.set(tweetId, { quote_count: 0, ...c }),
    /** A post written outside Herald, at a given time. */
    addPost(userId: string, text: string, createdAt: Date) {
      const post = store(users.find((u) => u.id === userId)!, text, null, []);
      post.createdAt = createdAt.toISOString();
      return post;
    },
  };
}

export type XApiPeer = Awaited<ReturnType<typeof startXApi>>;
