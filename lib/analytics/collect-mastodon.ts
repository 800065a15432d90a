import { mastodonApi, mastodonResponse } from "../providers/mastodon-api";
import { readJson } from "../providers/http";
import { htmlToText } from "../providers/text";
import { ProviderError, type AccountContext } from "../providers/types";
import { excerptOf, REFRESH_WINDOW_MS, type BackfillState, type CollectedPost, type CollectResult, type SourcedReading } from "./collect";

/**
 * Mastodon through its documented API: followers from GET /api/v1/accounts/verify_credentials, every
 * status's favourites, reblogs and replies from GET /api/v1/accounts/:id/statuses (40 a page, older pages
 * by `max_id` from the Link header). Views, impressions and reach are not offered by Mastodon at all.
 */

interface Status {
  id: string;
  created_at: string;
  url: string | null;
  content: string;
  reblog: unknown;
  favourites_count?: number;
  reblogs_count?: number;
  replies_count?: number;
}

const PAGE = 40;
const count = (v: unknown, metric: string): SourcedReading =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0
    ? { metric, value: v, source: "mastodon_api" }
    : { metric, value: null, reason: "not_in_response", source: "mastodon_api" };

function postOf(s: Status): CollectedPost {
  return {
    externalId: s.id,
    publishedAt: new Date(s.created_at),
    excerpt: excerptOf(htmlToText(s.content ?? "")),
    url: s.url,
    readings: [
      count(s.favourites_count, "likes"),
      count(s.reblogs_count, "reposts"),
      count(s.replies_count, "replies"),
      { metric: "views", value: null, reason: "not_offered_by_mastodon", source: "mastodon_api" },
    ],
  };
}

/** `max_id` of the Link header's rel="next" (older) page, or null on the last page. */
export function nextMaxId(link: string | null): string | null {
  const next = link?.split(",").find((part) => /rel="?next"?/.test(part));
  const url = next ? /<([^>]+)>/.exec(next)?.[1] : undefined;
  if (!url) return null;
  try {
    return new URL(url).searchParams.get("max_id");
  } catch {
    return null;
  }
}

export async function collectMastodon(account: AccountContext, state: BackfillState, budget: number, now = new Date()): Promise<CollectResult> {
  const me = await mastodonApi<{ id: string; followers_count?: number }>(account, "/api/v1/accounts/verify_credentials");
  const result: CollectResult = { account: [count(me.followers_count, "followers")], posts: [], backfill: { ...state }, oldestSeen: null, reads: 1 };
  const seen = new Set<string>();
  const page = async (maxId: string | null) => {
    result.reads++;
    const res = await mastodonResponse(
      account,
      `/api/v1/accounts/${encodeURIComponent(me.id)}/statuses?limit=${PAGE}${maxId ? `&max_id=${encodeURIComponent(maxId)}` : ""}`,
    );
    const statuses = ((await readJson<Status[]>(res)) ?? []).filter((s) => s && typeof s.id === "string" && !s.reblog);
    for (const s of statuses) {
      if (seen.has(s.id) || Number.isNaN(Date.parse(s.created_at))) continue;
      seen.add(s.id);
      const post = postOf(s);
      result.posts.push(post);
      if (!result.oldestSeen || post.publishedAt < result.oldestSeen) result.oldestSeen = post.publishedAt;
    }
    return { next: nextMaxId(res.headers.get("link")), statuses };
  };
  try {
    // Recent posts first (their counts move most), paging back through the refresh window.
    let next: string | null = null;
    let first = true;
    while (result.reads < budget && (first || next)) {
      const got = await page(first ? null : next);
      first = false;
      next = got.next;
      const oldest = got.statuses.at(-1);
      if (!next || (oldest && now.getTime() - Date.parse(oldest.created_at) > REFRESH_WINDOW_MS)) break;
      // Until discovery has covered the account once, hand over to backfill after the first page.
      if (!state.done) break;
    }
    if (!state.done) {
      // Discovery: older pages from where the last run stopped (or after the newest page).
      // The position is kept after every page, so a failure later in the run loses nothing already read.
      let cursor = state.cursor ?? next;
      result.backfill = { cursor, done: cursor === null };
      while (cursor !== null && result.reads < budget) {
        cursor = (await page(cursor)).next;
        result.backfill = { cursor, done: cursor === null };
      }
    }
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    result.error = err;
  }
  return result;
}
