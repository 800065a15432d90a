import { withSession, xrpc, type Session } from "../providers/bluesky-xrpc";
import { ProviderError, type AccountContext } from "../providers/types";
import { excerptOf, type BackfillState, type CollectedPost, type CollectResult, type SourcedReading } from "./collect";

/**
 * Bluesky: the account's posts from its own PDS (com.atproto.repo.listRecords, newest first, 100 a page,
 * by cursor). Like, repost and reply counts and followers exist only in an AppView (app.bsky.feed.getPosts,
 * app.bsky.actor.getProfile); the PDS proxies those when one is configured. Where none answers, the metrics
 * are stored unavailable with the reason, never as zero. Bluesky has no views at all.
 */

interface PostRecord {
  uri: string;
  value?: { text?: unknown; createdAt?: unknown };
}

const PAGE = 100;

const unavailable = (metric: string, reason: string): SourcedReading => ({ metric, value: null, reason, source: "bluesky_appview" });
const counted = (metric: string, v: unknown, source: SourcedReading["source"] = "bluesky_appview"): SourcedReading =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? { metric, value: v, source } : unavailable(metric, "not_in_response");

/** An AppView call that answers null (with why) when the server has no AppView to proxy to. */
async function fromAppView<T>(call: () => Promise<T>): Promise<{ value: T } | { reason: string }> {
  try {
    return { value: await call() };
  } catch (err) {
    if (err instanceof ProviderError && !err.info.retryable && err.info.kind !== "authentication") return { reason: "appview_unavailable" };
    throw err;
  }
}

const postUrl = (handle: string, uri: string) => `https://bsky.app/profile/${handle}/post/${uri.split("/").pop()}`;

export async function collectBluesky(account: AccountContext, state: BackfillState, budget: number): Promise<CollectResult> {
  return withSession(account, async (s: Session) => {
    const result: CollectResult = { account: [], posts: [], backfill: { ...state }, oldestSeen: null, reads: 1 };
    const profile = await fromAppView(() =>
      xrpc<{ followersCount?: number }>(account, s.pdsUrl, "app.bsky.actor.getProfile", { query: { actor: s.did }, token: s.accessJwt }),
    );
    result.account.push("value" in profile ? counted("followers", profile.value?.followersCount) : unavailable("followers", profile.reason));
    const listPage = async (cursor: string | null) => {
      result.reads++;
      const out = await xrpc<{ records?: PostRecord[]; cursor?: string }>(account, s.pdsUrl, "com.atproto.repo.listRecords", {
        query: { repo: s.did, collection: "app.bsky.feed.post", limit: String(PAGE), ...(cursor ? { cursor } : {}) },
      });
      const records = (out?.records ?? []).filter(
        (r) => typeof r?.uri === "string" && typeof r.value?.createdAt === "string" && !Number.isNaN(Date.parse(r.value.createdAt as string)),
      );
      return { records, next: records.length === PAGE && typeof out?.cursor === "string" ? out.cursor : null };
    };
    const found: PostRecord[] = [];
    try {
      // The newest page every run (recent posts), then older pages from the backfill cursor.
      const newest = await listPage(null);
      found.push(...newest.records);
      if (!state.done) {
        // The position is kept after every page, so a failure later in the run loses nothing already read.
        let cursor = state.cursor ?? newest.next;
        result.backfill = { cursor, done: cursor === null };
        while (cursor !== null && result.reads < budget) {
          const got = await listPage(cursor);
          found.push(...got.records);
          cursor = got.next;
          result.backfill = { cursor, done: cursor === null };
        }
      }
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      result.error = err;
    }
    // Counts for what was found, 25 URIs a call, while the AppView answers.
    const countsByUri = new Map<string, { likeCount?: number; repostCount?: number; replyCount?: number }>();
    let appViewReason: string | null = "value" in profile ? null : profile.reason;
    const unique = [...new Map(found.map((r) => [r.uri, r])).values()];
    for (let i = 0; i < unique.length && appViewReason === null && !result.error; i += 25) {
      const uris = unique.slice(i, i + 25).map((r) => r.uri);
      const got = await fromAppView(() =>
        xrpc<{ posts?: { uri: string; likeCount?: number; repostCount?: number; replyCount?: number }[] }>(
          account,
          s.pdsUrl,
          `app.bsky.feed.getPosts?${uris.map((u) => `uris=${encodeURIComponent(u)}`).join("&")}`,
          { token: s.accessJwt },
        ),
      );
      if ("reason" in got) appViewReason = got.reason;
      else for (const p of got.value?.posts ?? []) countsByUri.set(p.uri, p);
    }
    for (const r of unique) {
      const c = countsByUri.get(r.uri);
      const metric = (name: string, v: number | undefined) => (c ? counted(name, v) : unavailable(name, appViewReason ?? "not_in_response"));
      const post: CollectedPost = {
        externalId: r.uri,
        publishedAt: new Date(r.value!.createdAt as string),
        excerpt: typeof r.value?.text === "string" ? excerptOf(r.value.text) : null,
        url: postUrl(s.handle, r.uri),
        readings: [
          metric("likes", c?.likeCount),
          metric("reposts", c?.repostCount),
          metric("replies", c?.replyCount),
          { metric: "views", value: null, reason: "not_offered_by_bluesky", source: "bluesky_pds" },
        ],
      };
      result.posts.push(post);
      if (!result.oldestSeen || post.publishedAt < result.oldestSeen) result.oldestSeen = post.publishedAt;
    }
    return result;
  });
}
