import { MAX_URL_LENGTH } from "../../net/outbound-url";
import { readAnswer } from "../../providers/answer";
import { withSession, xrpcResponse, type Session } from "./xrpc";
import { ProviderError, type AccountContext } from "../../providers/types";
import { arrayOf, idOf, objectOf, optionalCountOf, optionalIdOf, optionalTextOf, type Shape } from "../../providers/analytics/answer-shape";
import {
  excerptOf,
  READ_BUDGET,
  READ_TIMEOUT_MS,
  type BackfillState,
  type CollectedPost,
  type CollectLimits,
  type CollectResult,
  type SourcedReading,
} from "../../providers/analytics/collect";

/**
 * Bluesky: the account's posts from its own PDS (com.atproto.repo.listRecords, newest first, 100 a page,
 * by cursor). Like, repost and reply counts and followers exist only in an AppView (app.bsky.feed.getPosts,
 * app.bsky.actor.getProfile); the PDS proxies those when one is configured. Where none answers, the metrics
 * are stored unavailable with the reason, never as zero. Bluesky has no views at all.
 * Every call counts in the read budget, the AppView's too: a page is read only while the budget still has
 * room for the calls its counts need. Answers are checked (./answer-shape.ts) before anything is kept.
 */

interface Found {
  uri: string;
  createdAt: Date;
  text: string | null;
}

interface Counts {
  likes?: number;
  reposts?: number;
  replies?: number;
}

const PAGE = 100;
/** URIs per app.bsky.feed.getPosts call (the lexicon's maximum). */
const POSTS_PER_CALL = 25;
const countCalls = (posts: number) => Math.ceil(posts / POSTS_PER_CALL);

const unavailable = (metric: string, reason: string): SourcedReading => ({ metric, value: null, reason, source: "bluesky_appview" });
const counted = (metric: string, v: number | undefined): SourcedReading =>
  v === undefined ? unavailable(metric, "not_in_response") : { metric, value: v, source: "bluesky_appview" };

/** An AppView call that answers why not when the server has no AppView to proxy to (any other failure is thrown). */
async function fromAppView<T>(call: () => Promise<T>): Promise<{ value: T } | { reason: string }> {
  try {
    return { value: await call() };
  } catch (err) {
    if (err instanceof ProviderError && !err.info.retryable && err.info.kind !== "authentication") return { reason: "appview_unavailable" };
    throw err;
  }
}

/** One listRecords record, checked; null when its createdAt is not a date (records are what clients wrote). */
function recordOf(v: unknown, at: string): Found | null {
  const r = objectOf(v, at);
  const uri = idOf(r.uri, `${at}.uri`);
  const value = objectOf(r.value, `${at}.value`);
  const createdAt = typeof value.createdAt === "string" ? Date.parse(value.createdAt) : Number.NaN;
  if (Number.isNaN(createdAt)) return null;
  return { uri, createdAt: new Date(createdAt), text: optionalTextOf(value.text, `${at}.value.text`) };
}

/**
 * The next getPosts call's URIs, query-escaped: up to 25, as many as keep the URL within MAX_URL_LENGTH
 * (outbound URLs are refused beyond it). `:` and `/` may stand unescaped in a query (RFC 3986), which
 * keeps 25 ordinary at:// URIs within it.
 */
const queryEscape = (uri: string) => encodeURIComponent(uri).replace(/%3A/gi, ":").replace(/%2F/gi, "/");

function urisForCall(uris: string[], room: number): string[] {
  const out: string[] = [];
  let length = 0;
  for (const uri of uris.slice(0, POSTS_PER_CALL)) {
    length += queryEscape(uri).length + "uris=&".length;
    if (out.length > 0 && length > room) break;
    out.push(uri);
  }
  return out;
}

const postUrl = (handle: string, uri: string) => `https://bsky.app/profile/${handle}/post/${uri.split("/").pop()}`;

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.bluesky, timeoutMs: READ_TIMEOUT_MS };

export async function collectBluesky(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS): Promise<CollectResult> {
  return withSession(account, async (s: Session) => {
    const get = async (method: string, query: Record<string, string> | undefined, token?: string): Promise<Shape> => {
      const res = await xrpcResponse(account, s.pdsUrl, method, { query, token, timeoutMs: limits.timeoutMs });
      return objectOf(await readAnswer(res, method), method);
    };
    const result: CollectResult = { account: [], posts: [], backfill: { ...state }, oldestSeen: null, reads: 1 };
    const profile = await fromAppView(() => get("app.bsky.actor.getProfile", { actor: s.did }, s.accessJwt));
    result.account.push(
      "value" in profile
        ? counted("followers", optionalCountOf(profile.value.followersCount, "app.bsky.actor.getProfile: followersCount"))
        : unavailable("followers", profile.reason),
    );
    let appViewReason: string | null = "value" in profile ? null : profile.reason;
    const found = new Map<string, Found>();
    // Room left for a page and the AppView calls every post found so far would need.
    const roomForPage = () => result.reads + 1 + (appViewReason === null ? countCalls(found.size + PAGE) : 0) <= limits.budget;
    const listPage = async (cursor: string | null) => {
      result.reads++;
      const method = "com.atproto.repo.listRecords";
      const out = await get(method, { repo: s.did, collection: "app.bsky.feed.post", limit: String(PAGE), ...(cursor ? { cursor } : {}) });
      const records = arrayOf(out.records, `${method}: records`).map((r, i) => recordOf(r, `${method}: records[${i}]`));
      const next = optionalIdOf(out.cursor, `${method}: cursor`);
      for (const r of records) if (r && !found.has(r.uri)) found.set(r.uri, r);
      return records.length === PAGE ? next : null;
    };
    try {
      // The newest page every run (recent posts), then older pages from the backfill cursor.
      const newest = await listPage(null);
      if (!state.done) {
        // The position is kept after every page, so a failure later in the run loses nothing already read.
        let cursor = state.cursor ?? newest;
        result.backfill = { cursor, done: cursor === null };
        while (cursor !== null && roomForPage()) {
          cursor = await listPage(cursor);
          result.backfill = { cursor, done: cursor === null };
        }
      }
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      result.error = err;
    }
    // Counts for what was found, 25 URIs a call, while the AppView answers and the budget lasts.
    const counts = new Map<string, Counts>();
    const asked = new Set<string>();
    const unique = [...found.values()];
    try {
      const method = "app.bsky.feed.getPosts";
      const room = MAX_URL_LENGTH - `${s.pdsUrl}/xrpc/${method}?`.length;
      for (let i = 0; i < unique.length && appViewReason === null && !result.error && result.reads < limits.budget; ) {
        const uris = urisForCall(
          unique.slice(i).map((r) => r.uri),
          room,
        );
        i += uris.length;
        result.reads++;
        const got = await fromAppView(() => get(`${method}?${uris.map((u) => `uris=${queryEscape(u)}`).join("&")}`, undefined, s.accessJwt));
        if ("reason" in got) appViewReason = got.reason;
        else {
          for (const u of uris) asked.add(u);
          arrayOf(got.value.posts, `${method}: posts`).forEach((v, j) => {
            const p = objectOf(v, `${method}: posts[${j}]`);
            const at = `${method}: posts[${j}]`;
            counts.set(idOf(p.uri, `${at}.uri`), {
              likes: optionalCountOf(p.likeCount, `${at}.likeCount`),
              reposts: optionalCountOf(p.repostCount, `${at}.repostCount`),
              replies: optionalCountOf(p.replyCount, `${at}.replyCount`),
            });
          });
        }
      }
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      result.error = err;
    }
    for (const r of unique) {
      const c = counts.get(r.uri);
      // Asked but not answered, or no AppView: unavailable, and why. Not asked (a failure or the budget cut the
      // run short): nothing is measured this time.
      const missing = asked.has(r.uri) ? "not_in_response" : appViewReason;
      const readings: SourcedReading[] = c
        ? [counted("likes", c.likes), counted("reposts", c.reposts), counted("replies", c.replies)]
        : missing !== null
          ? ["likes", "reposts", "replies"].map((m) => unavailable(m, missing))
          : [];
      const post: CollectedPost = {
        externalId: r.uri,
        publishedAt: r.createdAt,
        excerpt: r.text === null ? null : excerptOf(r.text),
        url: postUrl(s.handle, r.uri),
        readings: [...readings, { metric: "views", value: null, reason: "not_offered_by_bluesky", source: "bluesky_pds" }],
      };
      result.posts.push(post);
      if (!result.oldestSeen || post.publishedAt < result.oldestSeen) result.oldestSeen = post.publishedAt;
    }
    return result;
  });
}
