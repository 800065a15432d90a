import { segmentText } from "../../providers/text";
import { threadsApi } from "./api";
import { containerPlan } from "./body";
import { THREADS_TEXT_LIMIT, threadsLength } from "./text";
import { ProviderError, type AccountContext, type PostRef, type ProviderAdapter, type ProviderProfile, type SegmentToPublish } from "../../providers/types";

/**
 * Threads through the Threads API: each post is a media container (POST /{user-id}/threads), then published
 * (POST /{user-id}/threads_publish?creation_id=…), which answers the post's media id. A rendition is a
 * thread: each segment after the first replies to the previous one (`reply_to_id`); the publication's
 * images go on the first, fetched by Threads from Herald's signed media URLs.
 *
 * Never twice: a container is not a post (an unpublished one expires), so only the publish call can leave
 * an outcome unknown. Threads has no idempotency key; an attempt after an unknown outcome reads the account's
 * recent posts (GET /{user-id}/threads) and replies (GET /{user-id}/replies) and takes the segments already
 * there by text and reply chain.
 */

/** How many of the account's newest posts, and of its newest replies, reconciliation reads. */
const RECENT_PAGE = 50;
/** Waits between reads of an image container's status before publishing it (Threads fetches the image first). */
const PROCESSING_WAITS_MS = [0, 500, 1000, 2000, 4000, 8000];

interface ThreadsPost {
  id: string;
  text?: string;
  permalink?: string;
  replied_to?: { id: string };
}

const sorted = (segments: SegmentToPublish[]) => [...segments].sort((a, b) => a.position - b.position);
const normalise = (text: string) => text.normalize("NFC").replace(/\s+/g, " ").trim();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function checkThreadsLength(text: string, position: number): void {
  const length = threadsLength(text);
  if (length > THREADS_TEXT_LIMIT) {
    throw new ProviderError(`Segment ${position} is ${length} characters as Threads counts them; Threads allows ${THREADS_TEXT_LIMIT}.`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  }
}

async function ownUserId(account: AccountContext): Promise<string> {
  if (account.externalAccountId) return account.externalAccountId;
  return (await threadsApi<{ id: string }>(account, "/me", { params: { fields: "id" } })).id;
}

async function createContainer(account: AccountContext, userId: string, params: Record<string, string>): Promise<string> {
  const out = await threadsApi<{ id?: string }>(account, `/${encodeURIComponent(userId)}/threads`, { method: "POST", params });
  if (typeof out?.id !== "string")
    throw new ProviderError("Threads answered a container without its id.", { kind: "unknown", code: "malformed_id", retryable: true });
  return out.id;
}

/** Waits until Threads has fetched a container's media; nothing is published while it has not. */
async function awaitProcessed(account: AccountContext, containerId: string): Promise<void> {
  for (const wait of PROCESSING_WAITS_MS) {
    await sleep(wait);
    const out = await threadsApi<{ status?: string; error_message?: string }>(account, `/${encodeURIComponent(containerId)}`, {
      params: { fields: "status,error_message" },
    });
    if (out?.status === "FINISHED" || out?.status === "PUBLISHED") return;
    if (out?.status === "ERROR" || out?.status === "EXPIRED")
      throw new ProviderError(`Threads could not prepare the post's media (${String(out.error_message ?? out.status).slice(0, 200)}).`, {
        kind: "validation",
        code: "media_processing_failed",
        retryable: false,
      });
  }
  throw new ProviderError("Threads is still preparing the post's media; nothing was published.", {
    kind: "unavailable",
    code: "media_processing",
    retryable: true,
  });
}

async function permalinkOf(account: AccountContext, mediaId: string): Promise<string | null> {
  try {
    const out = await threadsApi<{ permalink?: string }>(account, `/${encodeURIComponent(mediaId)}`, { params: { fields: "permalink" } });
    return typeof out?.permalink === "string" ? out.permalink : null;
  } catch {
    // The post is published either way; its link is a nicety.
    return null;
  }
}

async function postSegment(account: AccountContext, userId: string, segment: SegmentToPublish, parent: PostRef | null): Promise<PostRef> {
  const plan = containerPlan(segmentText(segment), segment.media, parent?.id ?? null);
  const children: string[] = [];
  for (const item of plan.items) children.push(await createContainer(account, userId, item));
  const container = await createContainer(account, userId, children.length ? { ...plan.main, children: children.join(",") } : plan.main);
  if (segment.media.length) await awaitProcessed(account, container);
  const out = await threadsApi<{ id?: string }>(account, `/${encodeURIComponent(userId)}/threads_publish`, {
    method: "POST",
    params: { creation_id: container },
    mutating: true,
  });
  if (typeof out?.id !== "string")
    throw new ProviderError("Threads answered the publish without the post's id.", {
      kind: "unknown",
      code: "malformed_id",
      retryable: true,
      outcomeUnknown: true,
    });
  return { id: out.id, url: await permalinkOf(account, out.id) };
}

async function recent(account: AccountContext, userId: string, edge: "threads" | "replies"): Promise<ThreadsPost[]> {
  const out = await threadsApi<{ data?: ThreadsPost[] }>(account, `/${encodeURIComponent(userId)}/${edge}`, {
    params: { fields: edge === "replies" ? "id,text,permalink,replied_to" : "id,text,permalink", limit: String(RECENT_PAGE) },
  });
  return out?.data ?? [];
}

export const threadsAdapter: ProviderAdapter = {
  platform: "threads",
  textLimit: () => THREADS_TEXT_LIMIT,
  measure: threadsLength,

  async publish(account, rendition, progress) {
    const segments = sorted(rendition.segments);
    // Refuse before sending anything: a thread cut short by a too-long segment is worse than none.
    for (const segment of segments) if (!progress.posted.has(segment.position)) checkThreadsLength(segmentText(segment), segment.position);
    const userId = await ownUserId(account);
    let parent: PostRef | null = null;
    let first: PostRef | null = null;
    for (const segment of segments) {
      let ref = progress.posted.get(segment.position) ?? null;
      if (!ref) {
        ref = await postSegment(account, userId, segment, parent);
        await progress.onPosted(segment.position, ref);
      }
      parent = ref;
      first ??= ref;
    }
    return { external_id: first?.id ?? null, external_url: first?.url ?? null };
  },

  /**
   * The opening run of the thread found among the account's newest 50 posts (the first segment) and newest 50
   * replies (each later segment, replying to the previous one's post). Matching is by text.
   */
  async reconcile(account, rendition) {
    const userId = await ownUserId(account);
    const found = new Map<number, PostRef>();
    let parentId: string | null = null;
    let replies: ThreadsPost[] | null = null;
    for (const segment of sorted(rendition.segments)) {
      const text = normalise(segmentText(segment));
      const pool: ThreadsPost[] = parentId === null ? await recent(account, userId, "threads") : (replies ??= await recent(account, userId, "replies"));
      const match = pool.find((p) => normalise(p.text ?? "") === text && (parentId === null ? !p.replied_to : p.replied_to?.id === parentId));
      if (!match) break;
      found.set(segment.position, { id: match.id, url: match.permalink ?? null });
      parentId = match.id;
    }
    return found;
  },

  async readProfile(account): Promise<ProviderProfile> {
    const me = await threadsApi<{ id: string; username?: string; threads_profile_picture_url?: string }>(account, "/me", {
      params: { fields: "id,username,threads_profile_picture_url" },
    });
    return {
      username: me.username ?? null,
      avatar_url: me.threads_profile_picture_url ?? null,
      external_account_id: me.id,
      text_limit: THREADS_TEXT_LIMIT,
      account_kind: "personal",
    };
  },
};
