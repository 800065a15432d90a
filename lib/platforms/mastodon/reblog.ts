import { baseUrl, mastodonApi } from "./api";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Reblogs through the Mastodon API. A status id is local to one server, so a status from another server
 * is first resolved by its URL (`GET /api/v2/search?resolve=true`). Reblogging is reconciled by reading
 * the status's `reblogged` flag (as seen by the target account) before asking: a retry after a lost answer
 * finds it set and does not ask again.
 */

interface Status {
  id: string;
  url?: string | null;
  uri?: string;
  reblogged?: boolean;
  reblog?: Status | null;
}

/** The status's id on the target account's server. */
export async function localStatusId(account: AccountContext, post: { id: string; url: string | null; instanceUrl: string | null }): Promise<string> {
  if (post.instanceUrl && baseUrl(account) === baseUrl({ instanceUrl: post.instanceUrl })) return post.id;
  if (!post.url)
    throw new ProviderError("The post to reblog has no URL to find it by on another server.", {
      kind: "validation",
      code: "subject_not_found",
      retryable: false,
    });
  const found = await mastodonApi<{ statuses?: Status[] }>(account, `/api/v2/search?type=statuses&resolve=true&limit=1&q=${encodeURIComponent(post.url)}`);
  const status = found?.statuses?.[0];
  if (!status)
    throw new ProviderError("The post to reblog was not found from the target account's server.", {
      kind: "validation",
      code: "subject_not_found",
      retryable: false,
    });
  return status.id;
}

/** Reblogs the status unless the target account already has; returns the status id reblogged. */
export async function mastodonReblog(account: AccountContext, statusId: string): Promise<{ id: string; already: boolean }> {
  const path = `/api/v1/statuses/${encodeURIComponent(statusId)}`;
  const current = await mastodonApi<Status>(account, path);
  if (current?.reblogged) return { id: statusId, already: true };
  const out = await mastodonApi<Status>(account, `${path}/reblog`, { method: "POST", body: { visibility: "public" }, mutating: true });
  // The answer is the new reblog status (its `reblog` is the original): its id names this repost.
  return { id: out?.id ?? statusId, already: false };
}

/** Undoes the target account's reblog; not reblogged counts as done. */
export async function mastodonUnreblog(account: AccountContext, statusId: string): Promise<void> {
  const path = `/api/v1/statuses/${encodeURIComponent(statusId)}`;
  const current = await mastodonApi<Status>(account, path);
  if (!current?.reblogged) return;
  await mastodonApi<Status>(account, `${path}/unreblog`, { method: "POST", mutating: true });
}
