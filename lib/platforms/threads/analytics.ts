import { readAnswer } from "../../providers/answer";
import { graphFetch, threadsBase } from "./api";
import { ProviderError, type AccountContext } from "../../providers/types";
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

/**
 * Threads through the Threads Insights API: followers from GET /{user-id}/threads_insights?metric=followers_count,
 * the account's posts from GET /{user-id}/threads (newest first, older pages by the `after` cursor), and each
 * post's views, likes, replies and reposts from GET /{media-id}/insights (one read per post, so a page is sized to
 * what the run may still read). Needs the threads_manage_insights permission. Every answer is checked
 * (./answer-shape.ts) before anything of it is kept.
 */

const MAX_PAGE = 25;
const METRICS: [string, string][] = [
  ["views", "views"],
  ["likes", "likes"],
  ["replies", "replies"],
  ["reposts", "reposts"],
];

const reading = readingFrom("threads_api");

/** One authenticated GET read strictly; errors classified as every Threads call is (lib/platforms/threads/api.ts). */
async function get(account: AccountContext, path: string, params: Record<string, string>, limits: CollectLimits, what: string): Promise<Shape> {
  const res = await graphFetch(account, `${threadsBase(account)}${path}`, { params, timeoutMs: limits.timeoutMs });
  return objectOf(await readAnswer(res, what), what);
}

/** A metric's value from an insights answer: `values[0].value` (media) or `total_value.value` (user). */
export function insightValues(body: Shape, what: string): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  arrayOf(body.data, `${what}: data`).forEach((v, i) => {
    const m = objectOf(v, `${what}: data[${i}]`);
    const name = optionalTextOf(m.name, `${what}: data[${i}].name`);
    if (!name) return;
    const total = m.total_value === undefined ? undefined : objectOf(m.total_value, `${what}: data[${i}].total_value`).value;
    const first = m.values === undefined ? undefined : arrayOf(m.values, `${what}: data[${i}].values`)[0];
    const value = total ?? (first === undefined ? undefined : objectOf(first, `${what}: data[${i}].values[0]`).value);
    out.set(name, optionalCountOf(value, `${what}: data[${i}] value`));
  });
  return out;
}

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.threads, timeoutMs: READ_TIMEOUT_MS };

/**
 * Each run reads the newest page (its counts move most); until discovery has covered the account once, runs go on
 * instead from where the last one stopped, while the read budget lasts.
 */
export async function collectThreads(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS): Promise<CollectResult> {
  const me = account.externalAccountId ?? idOf((await get(account, "/me", { fields: "id" }, limits, "GET /me")).id, "GET /me: id");
  const who = encodeURIComponent(me);
  const followers = insightValues(
    await get(account, `/${who}/threads_insights`, { metric: "followers_count" }, limits, "GET /{user-id}/threads_insights"),
    "GET /{user-id}/threads_insights",
  );
  const result: CollectResult = {
    account: [reading("followers", followers.get("followers_count"))],
    posts: [],
    backfill: { ...state },
    oldestSeen: null,
    reads: 1,
  };
  const page = async (after: string | null) => {
    // The page and one insights read per post must fit what the run may still read.
    const size = Math.min(MAX_PAGE, limits.budget - result.reads - 1);
    if (size < 1) return null;
    result.reads++;
    const what = "GET /{user-id}/threads";
    const body = await get(
      account,
      `/${who}/threads`,
      { fields: "id,text,timestamp,permalink,media_type", limit: String(size), ...(after ? { after } : {}) },
      limits,
      what,
    );
    const list = arrayOf(body.data ?? [], `${what}: data`).map((v, i) => objectOf(v, `${what}: data[${i}]`));
    const paging: Shape = body.paging === undefined ? {} : objectOf(body.paging, `${what}: paging`);
    const cursors: Shape = paging.cursors === undefined ? {} : objectOf(paging.cursors, `${what}: paging.cursors`);
    const next = paging.next && cursors.after ? idOf(cursors.after, `${what}: paging.cursors.after`) : null;
    let oldest: Date | null = null;
    for (const [i, p] of list.entries()) {
      // Reposts of others' posts are not the account's own posts.
      if (p.media_type === "REPOST_FACADE") continue;
      const id = idOf(p.id, `${what}: data[${i}].id`);
      const publishedAt = timeOf(p.timestamp, `${what}: data[${i}].timestamp`);
      if (!oldest || publishedAt < oldest) oldest = publishedAt;
      result.reads++;
      const insights = insightValues(
        await get(account, `/${encodeURIComponent(id)}/insights`, { metric: METRICS.map(([m]) => m).join(",") }, limits, "GET /{media-id}/insights"),
        "GET /{media-id}/insights",
      );
      const post: CollectedPost = {
        externalId: id,
        publishedAt,
        excerpt: excerptOf(optionalTextOf(p.text, `${what}: data[${i}].text`) ?? ""),
        url: optionalTextOf(p.permalink, `${what}: data[${i}].permalink`),
        readings: METRICS.map(([name, metric]) => reading(metric, insights.get(name))),
      };
      result.posts.push(post);
      if (!result.oldestSeen || publishedAt < result.oldestSeen) result.oldestSeen = publishedAt;
    }
    return { next, oldest };
  };
  try {
    // Discovery under way: go on from where the last run stopped (the newest page was read when it started).
    const recent = state.done || state.cursor === null ? await page(null) : null;
    if (!state.done) {
      let cursor = state.cursor ?? recent?.next ?? null;
      result.backfill = { cursor, done: cursor === null };
      // The position is kept after every page, so a failure later in the run loses nothing already read.
      while (cursor !== null) {
        const got = await page(cursor);
        if (!got) break;
        cursor = got.next;
        result.backfill = { cursor, done: cursor === null };
      }
    }
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    result.error = err;
  }
  return result;
}
