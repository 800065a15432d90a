/**
 * Finding a rendition's segments among an account's recent posts (reconciliation after an unknown outcome,
 * and a post X refused as a duplicate). X answers post text with its links wrapped (t.co) and `&`, `<`, `>`
 * as HTML entities; `entities.urls` maps each wrapped link back to what was posted. Pure.
 */

export interface XTweet {
  id: string;
  text: string;
  referenced_tweets?: { type: string; id: string }[];
  entities?: { urls?: { url?: string; expanded_url?: string }[] };
}

export const normalise = (text: string) => text.normalize("NFC").replace(/\s+/g, " ").trim();

/** The text as posted: wrapped links expanded, X's three HTML entities decoded. */
export function postedText(tweet: XTweet): string {
  let text = tweet.text;
  for (const u of tweet.entities?.urls ?? []) if (u.url && u.expanded_url) text = text.split(u.url).join(u.expanded_url);
  return normalise(text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
}

export const repliedTo = (tweet: XTweet) => tweet.referenced_tweets?.find((r) => r.type === "replied_to")?.id ?? null;

/** The post with this text replying to `parentId` (null: a post that replies to nothing), newest first. */
export function findPost(tweets: XTweet[], text: string, parentId: string | null): XTweet | undefined {
  const wanted = normalise(text);
  return tweets.find((t) => postedText(t) === wanted && repliedTo(t) === parentId);
}

/**
 * The longest opening run of the thread found: segment i must reply to segment i-1's post. Returns the
 * post ids found by index into `texts`.
 */
export function matchThread(tweets: XTweet[], texts: string[], startParent: string | null = null): string[] {
  const found: string[] = [];
  let parent = startParent;
  for (const text of texts) {
    const match = findPost(tweets, text, parent);
    if (!match) break;
    found.push(match.id);
    parent = match.id;
  }
  return found;
}
