import { baseUrl, mastodonApi } from "./api";
import { readInstanceFacts } from "./instance";
import { uploadMedia } from "./media";
import { digest, findUrls, graphemeLength, hex, htmlToText, segmentText } from "../../providers/text";
import {
  ProviderError,
  type AccountContext,
  type InboundMessage,
  type PostRef,
  type ProviderAdapter,
  type ProviderProfile,
  type SegmentToPublish,
} from "../../providers/types";

/**
 * Mastodon REST API against any instance (Mastodon, and the servers that implement its API: Pleroma,
 * Akkoma, GoToSocial, …). Threads are reply chains through `in_reply_to_id`; every status is posted with
 * an `Idempotency-Key` derived from the rendition's delivery key and the segment's position, so a
 * repeated POST within the server's key lifetime (about an hour on Mastodon) returns the same status.
 */

export const MASTODON_DEFAULT_LIMIT = 500;
/** Mastodon counts every URL as 23 characters, whatever its length. */
export const MASTODON_URL_WEIGHT = 23;
/** How far back reconcile looks for statuses posted by an attempt whose outcome is unknown. */
const RECONCILE_PAGE = 40;

interface Status {
  id: string;
  url: string | null;
  uri: string;
  content: string;
  created_at: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  account: { id: string; acct: string; url?: string };
}

/** Length as Mastodon counts it: URLs weigh 23, `@user@domain` counts as `@user`, graphemes otherwise. */
export function mastodonLength(text: string): number {
  let countable = "";
  let last = 0;
  for (const { start, end } of findUrls(text)) {
    countable += text.slice(last, start) + "x".repeat(MASTODON_URL_WEIGHT);
    last = end;
  }
  countable += text.slice(last);
  countable = countable.replace(/(^|[^\w/])@(\w+)@[\w.-]+\w/g, "$1@$2");
  return graphemeLength(countable);
}

/** The Idempotency-Key of one segment: the same for every retry of that segment, different per segment. */
export async function idempotencyKey(deliveryKey: string, position: number): Promise<string> {
  return `herald-${hex(await digest("mastodon-status", deliveryKey, position)).slice(0, 48)}`;
}

const refOf = (status: Status): PostRef => ({ id: status.id, url: status.url ?? status.uri ?? null });
const normalise = (text: string) => text.replace(/\s+/g, " ").trim();
const sorted = (segments: SegmentToPublish[]) => [...segments].sort((a, b) => a.position - b.position);

async function ownAccountId(account: AccountContext): Promise<string> {
  if (account.externalAccountId) return account.externalAccountId;
  return (await mastodonApi<{ id: string }>(account, "/api/v1/accounts/verify_credentials")).id;
}

export const mastodonAdapter: ProviderAdapter = {
  platform: "mastodon",
  textLimit: (_account, announced) => (announced && announced > 0 ? announced : MASTODON_DEFAULT_LIMIT),
  measure: mastodonLength,

  async publish(account, rendition, progress) {
    let limit: number | null = null;
    let parent: PostRef | null = null;
    let first: PostRef | null = null;
    for (const segment of sorted(rendition.segments)) {
      const done = progress.posted.get(segment.position);
      if (done) {
        parent = done;
        first ??= done;
        continue;
      }
      const status = segmentText(segment);
      const length = mastodonLength(status);
      if (length > MASTODON_DEFAULT_LIMIT) {
        // Only texts past the default need the server's own limit.
        limit ??= (await readInstanceFacts(account)).maxCharacters ?? MASTODON_DEFAULT_LIMIT;
        if (length > limit) {
          throw new ProviderError(`Segment ${segment.position} is ${length} characters as Mastodon counts them; this server allows ${limit}.`, {
            kind: "validation",
            code: "text_too_long",
            retryable: false,
          });
        }
      }
      const mediaIds = segment.media.length ? await uploadMedia(account, segment.media) : [];
      const posted = await mastodonApi<Status>(account, "/api/v1/statuses", {
        method: "POST",
        headers: { "idempotency-key": await idempotencyKey(rendition.deliveryKey, segment.position) },
        body: { status, visibility: "public", ...(parent ? { in_reply_to_id: parent.id } : {}), ...(mediaIds.length ? { media_ids: mediaIds } : {}) },
        mutating: true,
      });
      const ref = refOf(posted);
      await progress.onPosted(segment.position, ref);
      parent = ref;
      first ??= ref;
    }
    return { external_id: first?.id ?? null, external_url: first?.url ?? null };
  },

  /**
   * Finds segments already posted by reading the account's newest statuses and matching their text and
   * reply chain. Limits: only the newest 40 statuses are read, and matching is by text, so a segment whose
   * text the account also posted elsewhere as a thread start could be mistaken for it. Within the server's
   * Idempotency-Key lifetime (about an hour on Mastodon) re-posting with the same key is also safe.
   */
  async reconcile(account, rendition) {
    const id = await ownAccountId(account);
    const recent = await mastodonApi<Status[]>(account, `/api/v1/accounts/${encodeURIComponent(id)}/statuses?limit=${RECONCILE_PAGE}&exclude_reblogs=true`);
    const found = new Map<number, PostRef>();
    let parentId: string | null = null;
    for (const segment of sorted(rendition.segments)) {
      const text = normalise(segmentText(segment));
      const match = (recent ?? []).find((s) => normalise(htmlToText(s.content)) === text && (s.in_reply_to_id ?? null) === parentId);
      if (!match) break;
      found.set(segment.position, refOf(match));
      parentId = match.id;
    }
    return found;
  },

  async readProfile(account): Promise<ProviderProfile> {
    const me = await mastodonApi<{ id: string; username: string; acct: string; avatar?: string; bot?: boolean; group?: boolean }>(
      account,
      "/api/v1/accounts/verify_credentials",
    );
    const facts = await readInstanceFacts(account);
    const domain = facts.domain ?? new URL(baseUrl(account)).host;
    return {
      username: me.acct.includes("@") ? me.acct : `${me.username}@${domain}`,
      avatar_url: me.avatar ?? null,
      external_account_id: me.id,
      fediverse_software: facts.software,
      instance_url: baseUrl(account),
      text_limit: facts.maxCharacters ?? MASTODON_DEFAULT_LIMIT,
      account_kind: me.group ? "group" : me.bot ? "bot" : "personal",
    };
  },

  /** The newest 40 mentions (a reply to the account is a mention too); `since` (RFC 3339) drops older ones. */
  async readMessages(account, opts): Promise<InboundMessage[]> {
    const own = await ownAccountId(account);
    const notes = await mastodonApi<{ id: string; type: string; created_at: string; account: { acct: string }; status?: Status }[]>(
      account,
      "/api/v1/notifications?types[]=mention&limit=40",
    );
    const since = opts.since ? Date.parse(opts.since) : null;
    return (notes ?? [])
      .filter((n) => n.type === "mention" && n.status)
      .filter((n) => since === null || Date.parse(n.status!.created_at) > since)
      .map((n) => ({
        external_id: n.status!.id,
        kind: n.status!.in_reply_to_account_id === own ? ("reply" as const) : ("mention" as const),
        author_handle: n.account.acct,
        text: htmlToText(n.status!.content),
        url: n.status!.url ?? n.status!.uri ?? null,
        in_reply_to_external_id: n.status!.in_reply_to_id,
        created_at: new Date(n.status!.created_at).toISOString(),
      }));
  },
};
