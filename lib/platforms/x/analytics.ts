import { readAnswer } from "../../providers/answer";
import type { AccountContext } from "../../providers/types";
import { xResponse, xUserId } from "./api";
import { xPostUrl } from "./adapter";
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
 * X through API v2: followers from GET /2/users/:id (`public_metrics.followers_count`), every post's likes,
 * reposts (retweets), replies and views (impressions) from `public_metrics` of GET /2/users/:id/tweets (100 a
 * page, older pages by `pagination_token` from `meta.next_token`; retweets of others' posts excluded). Every
 * answer is checked (./answer-shape.ts) before anything of it is kept; a malformed one ends the run as a
 * recorded failure, keeping what earlier pages gave.
 */

const PAGE = 100;
const reading = readingFrom("x_api");

function postOf(account: AccountContext, v: unknown, at: string): CollectedPost {
  const t = objectOf(v, at);
  const id = idOf(t.id, `${at}.id`);
  const m: Shape = t.public_metrics === undefined ? {} : objectOf(t.public_metrics, `${at}.public_metrics`);
  return {
    externalId: id,
    publishedAt: timeOf(t.created_at, `${at}.created_at`),
    excerpt: excerptOf(optionalTextOf(t.text, `${at}.text`) ?? ""),
    url: xPostUrl(account, id),
    readings: [
      reading("likes", optionalCountOf(m.like_count, `${at}.public_metrics.like_count`)),
      reading("reposts", optionalCountOf(m.retweet_count, `${at}.public_metrics.retweet_count`)),
      reading("replies", optionalCountOf(m.reply_count, `${at}.public_metrics.reply_count`)),
      reading("views", optionalCountOf(m.impression_count, `${at}.public_metrics.impression_count`)),
    ],
  };
}

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.x, timeoutMs: READ_TIMEOUT_MS };

export async function collectX(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS, now = new Date()): Promise<CollectResult> {
  const userId = await xUserId(account);
  const call = "GET /2/users/:id";
  const user = objectOf(
    objectOf(
      await readAnswer(await xResponse(account, `/2/users/${encodeURIComponent(userId)}?user.fields=public_metrics`, { timeoutMs: limits.timeoutMs }), call),
      call,
    ).data,
    `${call}: data`,
  );
  const metrics: Shape = user.public_metrics === undefined ? {} : objectOf(user.public_metrics, `${call}: public_metrics`);
  const result: CollectResult = {
    account: [reading("followers", optionalCountOf(metrics.followers_count, `${call}: public_metrics.followers_count`))],
    posts: [],
    backfill: { ...state },
    oldestSeen: null,
    reads: 1,
  };
  return walkPostPages(result, state, limits, now, async (token: string | null) => {
    const what = "GET /2/users/:id/tweets";
    const body = objectOf(
      await readAnswer(
        await xResponse(
          account,
          `/2/users/${encodeURIComponent(userId)}/tweets?max_results=${PAGE}&exclude=retweets&tweet.fields=public_metrics,created_at${token ? `&pagination_token=${encodeURIComponent(token)}` : ""}`,
          { timeoutMs: limits.timeoutMs },
        ),
        what,
      ),
      what,
    );
    // An empty page has no `data` at all.
    const list = body.data === undefined ? [] : arrayOf(body.data, `${what}: data`);
    const posts = list.map((t, i) => postOf(account, t, `${what}: data[${i}]`));
    const meta: Shape = body.meta === undefined ? {} : objectOf(body.meta, `${what}: meta`);
    const next = meta.next_token === undefined || meta.next_token === null ? null : idOf(meta.next_token, `${what}: meta.next_token`);
    return { posts, next };
  });
}
