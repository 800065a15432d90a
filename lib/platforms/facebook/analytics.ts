import type { AccountContext } from "../../providers/types";
import { idOf, objectOf, optionalCountOf, optionalTextOf, timeOf, type Shape } from "../../providers/analytics/answer-shape";
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
import { graphPage, graphRead } from "./graph-read";
import { walkPostPages } from "../../providers/analytics/walk-post-pages";

/**
 * Facebook Pages through the Graph API (v21.0, the Page token Herald keeps): followers from GET /{page-id}
 * (`followers_count`), the Page's posts from GET /{page-id}/posts (newest first, older pages by
 * `paging.cursors.after`) with each post's counts in the same answer: reactions (`reactions.summary(total_count)`)
 * as likes, comments (`comments.summary(total_count)`) as replies, `shares.count` as reposts. Post insights are not
 * read: Meta deprecated the impressions metrics in 2025 and is retiring more Page insights metrics, and these
 * three counts need only pages_read_engagement. A count Graph leaves out (`shares` is absent when it has none to
 * show) is stored unavailable, never as zero.
 */

const PAGE = 50;
const FIELDS = "id,created_time,message,permalink_url,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares";

const reading = readingFrom("facebook_graph");

/** `{edge}.summary.total_count`, or undefined when the edge or its summary is not in the answer. */
function summaryCount(v: unknown, at: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const edge = objectOf(v, at);
  if (edge.summary === undefined || edge.summary === null) return undefined;
  return optionalCountOf(objectOf(edge.summary, `${at}.summary`).total_count, `${at}.summary.total_count`);
}

function postOf(p: Shape, at: string): CollectedPost {
  const shares = p.shares === undefined || p.shares === null ? undefined : optionalCountOf(objectOf(p.shares, `${at}.shares`).count, `${at}.shares.count`);
  return {
    externalId: idOf(p.id, `${at}.id`),
    publishedAt: timeOf(p.created_time, `${at}.created_time`),
    excerpt: excerptOf(optionalTextOf(p.message, `${at}.message`) ?? ""),
    url: optionalTextOf(p.permalink_url, `${at}.permalink_url`),
    readings: [
      reading("likes", summaryCount(p.reactions, `${at}.reactions`)),
      reading("replies", summaryCount(p.comments, `${at}.comments`)),
      reading("reposts", shares),
    ],
  };
}

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.facebook, timeoutMs: READ_TIMEOUT_MS };

export async function collectFacebook(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS, now = new Date()): Promise<CollectResult> {
  const pageId = account.externalAccountId ?? account.credentials.page_id;
  const who = encodeURIComponent(idOf(pageId, "the account's Page id"));
  const call = "GET /{page-id}";
  const page = await graphRead(account, `/${who}`, { fields: "id,followers_count" }, limits, call);
  const result: CollectResult = {
    account: [reading("followers", optionalCountOf(page.followers_count, `${call}: followers_count`))],
    posts: [],
    backfill: { ...state },
    oldestSeen: null,
    reads: 1,
  };
  return walkPostPages(result, state, limits, now, async (after) => {
    const what = "GET /{page-id}/posts";
    const body = await graphRead(account, `/${who}/posts`, { fields: FIELDS, limit: String(PAGE), ...(after ? { after } : {}) }, limits, what);
    const { items, next } = graphPage(body, what);
    return { posts: items.map((p, i) => postOf(p, `${what}: data[${i}]`)), next };
  });
}
