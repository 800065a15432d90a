import { segmentText } from "../../providers/text";
import { xApi, xUserId } from "./api";
import { findPost, matchThread, type XTweet } from "./match";
import { uploadXImages } from "./media";
import { X_TEXT_LIMIT, xWeightedLength } from "./text";
import { ProviderError, type AccountContext, type PostRef, type ProviderAdapter, type ProviderProfile, type SegmentToPublish } from "../../providers/types";

/**
 * X through API v2 with an OAuth 2.0 user token. A rendition is a thread: each segment after the first
 * replies to the previous one (`reply.in_reply_to_tweet_id`); the publication's images go on the first.
 *
 * Never twice: X has no idempotency key, so an attempt after an unknown outcome first reads the account's
 * recent posts (`GET /2/users/:id/tweets`) and takes the segments already there by text and reply chain.
 * X itself refuses a post identical to a recent one (403 duplicate content): that answer is met by finding
 * the existing post the same way and counting it as posted.
 */

/** How many of the account's newest posts reconciliation reads (one page, X's maximum). */
const RECENT_PAGE = 100;

const sorted = (segments: SegmentToPublish[]) => [...segments].sort((a, b) => a.position - b.position);

export const xPostUrl = (account: Pick<AccountContext, "username">, id: string) => {
  const handle = account.username?.replace(/^@/, "");
  return handle ? `https://x.com/${encodeURIComponent(handle)}/status/${id}` : `https://x.com/i/web/status/${id}`;
};

export function checkXLength(text: string, position: number): void {
  const length = xWeightedLength(text);
  if (length > X_TEXT_LIMIT) {
    throw new ProviderError(`Segment ${position} is ${length} characters as X counts them; X allows ${X_TEXT_LIMIT}.`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  }
}

/** The account's newest posts (retweets excluded), with what matching needs. */
export async function recentPosts(account: AccountContext): Promise<XTweet[]> {
  const id = await xUserId(account);
  const out = await xApi<{ data?: XTweet[] }>(
    account,
    `/2/users/${encodeURIComponent(id)}/tweets?max_results=${RECENT_PAGE}&exclude=retweets&tweet.fields=referenced_tweets,entities,created_at`,
  );
  return out?.data ?? [];
}

async function createPost(account: AccountContext, text: string, parent: PostRef | null, mediaIds: string[]): Promise<PostRef> {
  try {
    const out = await xApi<{ data?: { id?: string } }>(account, "/2/tweets", {
      method: "POST",
      body: {
        text,
        ...(parent ? { reply: { in_reply_to_tweet_id: parent.id } } : {}),
        ...(mediaIds.length ? { media: { media_ids: mediaIds } } : {}),
      },
      mutating: true,
    });
    const id = out?.data?.id;
    if (typeof id !== "string")
      throw new ProviderError("X answered the post without its id.", { kind: "unknown", code: "malformed_id", retryable: true, outcomeUnknown: true });
    return { id, url: xPostUrl(account, id) };
  } catch (err) {
    if (!(err instanceof ProviderError) || err.info.code !== "duplicate_content") throw err;
    // The same text is already there: if it is this segment (same reply chain), it was posted.
    const existing = findPost(await recentPosts(account), text, parent?.id ?? null);
    if (existing) return { id: existing.id, url: xPostUrl(account, existing.id) };
    throw err;
  }
}

export const xAdapter: ProviderAdapter = {
  platform: "x",
  textLimit: () => X_TEXT_LIMIT,
  measure: xWeightedLength,

  async publish(account, rendition, progress) {
    const segments = sorted(rendition.segments);
    // Refuse before sending anything: a thread cut short by a too-long segment is worse than none.
    for (const segment of segments) if (!progress.posted.has(segment.position)) checkXLength(segmentText(segment), segment.position);
    let parent: PostRef | null = null;
    let first: PostRef | null = null;
    for (const segment of segments) {
      let ref = progress.posted.get(segment.position) ?? null;
      if (!ref) {
        const mediaIds = segment.media.length ? await uploadXImages(account, segment.media) : [];
        ref = await createPost(account, segmentText(segment), parent, mediaIds);
        await progress.onPosted(segment.position, ref);
      }
      parent = ref;
      first ??= ref;
    }
    return { external_id: first?.id ?? null, external_url: first?.url ?? null };
  },

  /**
   * Reads the account's newest 100 posts and takes the opening run of the thread found there (each
   * segment's text, replying to the previous segment's post). Matching is by text: a segment whose exact
   * text the account also posted at the same place in another thread could be mistaken for it.
   */
  async reconcile(account, rendition) {
    const segments = sorted(rendition.segments);
    const ids = matchThread(
      await recentPosts(account),
      segments.map((s) => segmentText(s)),
    );
    return new Map(ids.map((id, i) => [segments[i].position, { id, url: xPostUrl(account, id) }]));
  },

  async readProfile(account): Promise<ProviderProfile> {
    const me = await xApi<{ data: { id: string; username: string; profile_image_url?: string } }>(account, "/2/users/me?user.fields=profile_image_url");
    return {
      username: me.data.username,
      avatar_url: me.data.profile_image_url ?? null,
      external_account_id: me.data.id,
      text_limit: X_TEXT_LIMIT,
      account_kind: "personal",
    };
  },
};
