import { ProviderError, type AccountContext } from "../../providers/types";
import { idOf, optionalCountOf, optionalTextOf, timeOf, type Shape } from "../../providers/analytics/answer-shape";
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
import { insightValues } from "../threads/analytics";
import { graphPage, graphRead } from "../facebook/graph-read";
import { walkPostPages } from "../../providers/analytics/walk-post-pages";

/**
 * Instagram professional accounts through the Instagram API with Facebook Login (Graph API v21.0, the Page token
 * Herald keeps): followers from GET /{ig-user-id} (`followers_count`), the account's media from GET
 * /{ig-user-id}/media (newest first, older pages by `paging.cursors.after`) with `like_count` (likes; left out when
 * the owner hides like counts) and `comments_count` (replies), and each media's `views` and `reach` from GET
 * /{ig-media-id}/insights (one read per media, so a page is sized to what the run may still read; impressions and
 * plays are deprecated since 2025). Needs instagram_manage_insights. Instagram answers an empty data set for
 * insights it does not have and error code 10 when too few people saw the media: both are unavailable, never zero.
 */

const MAX_PAGE = 25;
const INSIGHTS = ["views", "reach"] as const;

const reading = readingFrom("instagram_graph");

/**
 * Graph error code 10 on insights: "Not enough viewers for the media to show insights". Code 10 is also Graph's
 * "permission denied" (a token without instagram_manage_insights), which must fail the run, so the message decides.
 */
const tooFewViewers = (err: unknown) => err instanceof ProviderError && err.info.code === "graph_10" && /not enough viewers/i.test(err.message);

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.instagram, timeoutMs: READ_TIMEOUT_MS };

export async function collectInstagram(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS, now = new Date()): Promise<CollectResult> {
  const who = encodeURIComponent(idOf(account.externalAccountId, "the account's Instagram user id"));
  const call = "GET /{ig-user-id}";
  const user = await graphRead(account, `/${who}`, { fields: "id,followers_count" }, limits, call);
  const result: CollectResult = {
    account: [reading("followers", optionalCountOf(user.followers_count, `${call}: followers_count`))],
    posts: [],
    backfill: { ...state },
    oldestSeen: null,
    reads: 1,
  };

  async function postOf(p: Shape, at: string): Promise<CollectedPost> {
    const id = idOf(p.id, `${at}.id`);
    const post: CollectedPost = {
      externalId: id,
      publishedAt: timeOf(p.timestamp, `${at}.timestamp`),
      excerpt: excerptOf(optionalTextOf(p.caption, `${at}.caption`) ?? ""),
      url: optionalTextOf(p.permalink, `${at}.permalink`),
      readings: [
        reading("likes", optionalCountOf(p.like_count, `${at}.like_count`)),
        reading("replies", optionalCountOf(p.comments_count, `${at}.comments_count`)),
      ],
    };
    result.reads++;
    const what = "GET /{ig-media-id}/insights";
    try {
      const insights = insightValues(await graphRead(account, `/${encodeURIComponent(id)}/insights`, { metric: INSIGHTS.join(",") }, limits, what), what);
      post.readings.push(...INSIGHTS.map((m) => reading(m, insights.get(m))));
    } catch (err) {
      if (!tooFewViewers(err)) throw err;
      post.readings.push(...INSIGHTS.map((m) => reading(m, undefined, "too_few_viewers")));
    }
    return post;
  }

  return walkPostPages(result, state, limits, now, async (after) => {
    // The page and one insights read per media must fit what the run may still read (this page's read is counted).
    const size = Math.min(MAX_PAGE, limits.budget - result.reads);
    // No room left for insights: nothing is read, and the next run starts from this same position.
    if (size < 1) return { posts: [], next: after };
    const what = "GET /{ig-user-id}/media";
    const body = await graphRead(
      account,
      `/${who}/media`,
      { fields: "id,caption,timestamp,permalink,like_count,comments_count", limit: String(size), ...(after ? { after } : {}) },
      limits,
      what,
    );
    const { items, next } = graphPage(body, what);
    const posts: CollectedPost[] = [];
    for (const [i, p] of items.entries()) posts.push(await postOf(p, `${what}: data[${i}]`));
    return { posts, next };
  });
}
