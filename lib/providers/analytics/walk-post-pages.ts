import { ProviderError } from "../types";
import { type BackfillState, type CollectedPost, type CollectLimits, type CollectResult, REFRESH_WINDOW_MS } from "./collect";

/** One page of an account's posts, newest first, as a platform's reader gives it; `next` is the cursor of older posts. */
export interface PostPage {
  /** Null for an item the collector does not keep (a Mastodon boost). */
  posts: (CollectedPost | null)[];
  next: string | null;
}

/**
 * How collectors whose post pages carry their counts (Mastodon, X) read an account: recent posts first (their counts
 * move most), paging back through the refresh window; then, until discovery has covered the account once, older pages
 * from where the last run stopped, the position kept after every page so that a failure later in the run loses nothing
 * already read. Every page counts against the run's read budget. A ProviderError ends the walk and is kept on the
 * result (what was read stays); anything else is thrown.
 */
export async function walkPostPages(
  result: CollectResult,
  state: BackfillState,
  limits: CollectLimits,
  now: Date,
  readPage: (cursor: string | null) => Promise<PostPage>,
): Promise<CollectResult> {
  const seen = new Set<string>();
  const page = async (cursor: string | null) => {
    result.reads++;
    const { posts, next } = await readPage(cursor);
    let oldest: Date | null = null;
    for (const post of posts) {
      if (!post) continue;
      if (!oldest || post.publishedAt < oldest) oldest = post.publishedAt;
      if (seen.has(post.externalId)) continue;
      seen.add(post.externalId);
      result.posts.push(post);
      if (!result.oldestSeen || post.publishedAt < result.oldestSeen) result.oldestSeen = post.publishedAt;
    }
    return { next, oldest };
  };
  try {
    let next: string | null = null;
    let first = true;
    while (result.reads < limits.budget && (first || next)) {
      const got = await page(first ? null : next);
      first = false;
      next = got.next;
      if (!next || (got.oldest && now.getTime() - got.oldest.getTime() > REFRESH_WINDOW_MS)) break;
      // Until discovery has covered the account once, hand over to backfill after the first page.
      if (!state.done) break;
    }
    if (!state.done) {
      let cursor = state.cursor ?? next;
      result.backfill = { cursor, done: cursor === null };
      while (cursor !== null && result.reads < limits.budget) {
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
