import { readAnswer } from "../../providers/answer";
import { mastodonResponse } from "./api";
import { htmlToText } from "../../providers/text";
import type { AccountContext } from "../../providers/types";
import { arrayOf, idOf, objectOf, optionalCountOf, optionalTextOf, timeOf, type Shape } from "../../providers/analytics/answer-shape";
import {
  excerptOf,
  READ_BUDGET,
  READ_TIMEOUT_MS,
  readingFrom,
  type BackfillState,
  type CollectedPost,
  type CollectLimits,
  type CollectResult,
} from "../../providers/analytics/collect";
import { walkPostPages } from "../../providers/analytics/walk-post-pages";

/**
 * Mastodon through its documented API: followers from GET /api/v1/accounts/verify_credentials, every
 * status's favourites, reblogs and replies from GET /api/v1/accounts/:id/statuses (40 a page, older pages
 * by `max_id` from the Link header). Views, impressions and reach are not offered by Mastodon at all.
 * Every answer is checked (./answer-shape.ts) before anything of it is kept: a malformed one ends the run
 * as a recorded failure, keeping what earlier pages gave.
 */

const PAGE = 40;
const reading = readingFrom("mastodon_api");

/** One status of a statuses page, checked; null for a reblog (someone else's post, not the account's). */
function postOf(v: unknown, at: string): CollectedPost | null {
  const s = objectOf(v, at);
  const id = idOf(s.id, `${at}.id`);
  if (s.reblog !== undefined && s.reblog !== null) return null;
  return {
    externalId: id,
    publishedAt: timeOf(s.created_at, `${at}.created_at`),
    excerpt: excerptOf(htmlToText(optionalTextOf(s.content, `${at}.content`) ?? "")),
    url: optionalTextOf(s.url, `${at}.url`),
    readings: [
      reading("likes", optionalCountOf(s.favourites_count, `${at}.favourites_count`)),
      reading("reposts", optionalCountOf(s.reblogs_count, `${at}.reblogs_count`)),
      reading("replies", optionalCountOf(s.replies_count, `${at}.replies_count`)),
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

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.mastodon, timeoutMs: READ_TIMEOUT_MS };

export async function collectMastodon(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS, now = new Date()): Promise<CollectResult> {
  const call = "GET /api/v1/accounts/verify_credentials";
  const me: Shape = objectOf(
    await readAnswer(await mastodonResponse(account, "/api/v1/accounts/verify_credentials", { timeoutMs: limits.timeoutMs }), call),
    call,
  );
  const myId = idOf(me.id, `${call}: id`);
  const result: CollectResult = {
    account: [reading("followers", optionalCountOf(me.followers_count, `${call}: followers_count`))],
    posts: [],
    backfill: { ...state },
    oldestSeen: null,
    reads: 1,
  };
  return walkPostPages(result, state, limits, now, async (maxId: string | null) => {
    const res = await mastodonResponse(
      account,
      `/api/v1/accounts/${encodeURIComponent(myId)}/statuses?limit=${PAGE}${maxId ? `&max_id=${encodeURIComponent(maxId)}` : ""}`,
      { timeoutMs: limits.timeoutMs },
    );
    const what = "GET /api/v1/accounts/:id/statuses";
    const list = arrayOf(await readAnswer(res, what), what);
    // The whole page is checked before any of it is kept: a malformed page adds nothing.
    const posts = list.map((s, i) => postOf(s, `${what}: [${i}]`));
    const next = nextMaxId(res.headers.get("link"));
    if (next !== null) idOf(next, `${what}: the Link header's max_id`);
    return { posts, next };
  });
}
