import { xApi, xUserId } from "./api";
import type { AccountContext } from "../../providers/types";

/**
 * Retweets through X API v2 (POST /2/users/:id/retweets, DELETE /2/users/:id/retweets/:source_tweet_id). X
 * ignores a duplicate retweet and answers `retweeted: true` again, so a retry after a lost answer makes no
 * second retweet; undoing one that is not there answers `retweeted: false`, which counts as done. A retweet is
 * named by the post it retweets (the id X's undo takes).
 */

export async function xRetweet(account: AccountContext, tweetId: string): Promise<string> {
  const me = await xUserId(account);
  await xApi(account, `/2/users/${encodeURIComponent(me)}/retweets`, { method: "POST", body: { tweet_id: tweetId }, mutating: true });
  return tweetId;
}

export async function xUnretweet(account: AccountContext, tweetId: string): Promise<void> {
  const me = await xUserId(account);
  await xApi(account, `/2/users/${encodeURIComponent(me)}/retweets/${encodeURIComponent(tweetId)}`, { method: "DELETE", mutating: true });
}
