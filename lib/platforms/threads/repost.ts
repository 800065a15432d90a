import { threadsApi } from "./api";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Reposts on Threads (POST /{threads-media-id}/repost answers the repost's id). A repost shows in the account's
 * own posts as a REPOST_FACADE naming its `reposted_post`, so it is looked for before asking and again after a
 * failed ask (the answer may have been lost): a retried attempt never reposts twice. Threads offers no way to
 * undo a repost other than deleting it, which needs the threads_delete permission Herald does not ask for.
 */

const RECENT_PAGE = 50;

interface Facade {
  id: string;
  media_type?: string;
  reposted_post?: { id?: string };
}

async function ownUserId(account: AccountContext): Promise<string> {
  if (account.externalAccountId) return account.externalAccountId;
  return (await threadsApi<{ id: string }>(account, "/me", { params: { fields: "id" } })).id;
}

/** The account's repost of `mediaId` among its newest posts, if there is one. */
export async function findRepost(account: AccountContext, mediaId: string): Promise<string | null> {
  const me = await ownUserId(account);
  const out = await threadsApi<{ data?: Facade[] }>(account, `/${encodeURIComponent(me)}/threads`, {
    params: { fields: "id,media_type,reposted_post", limit: String(RECENT_PAGE) },
  });
  return (out?.data ?? []).find((p) => p.media_type === "REPOST_FACADE" && p.reposted_post?.id === mediaId)?.id ?? null;
}

export async function threadsRepost(account: AccountContext, mediaId: string): Promise<string> {
  const existing = await findRepost(account, mediaId);
  if (existing) return existing;
  try {
    const out = await threadsApi<{ id?: string }>(account, `/${encodeURIComponent(mediaId)}/repost`, { method: "POST", mutating: true });
    if (typeof out?.id !== "string")
      throw new ProviderError("Threads answered the repost without its id.", { kind: "unknown", code: "malformed_id", retryable: true, outcomeUnknown: true });
    return out.id;
  } catch (err) {
    const after = await findRepost(account, mediaId).catch(() => null);
    if (after) return after;
    throw err;
  }
}

export function threadsUnrepostUnavailable(): never {
  throw new ProviderError("Threads offers no way to undo a repost without the threads_delete permission, which Herald does not request.", {
    kind: "validation",
    code: "unrepost_not_supported",
    retryable: false,
  });
}
