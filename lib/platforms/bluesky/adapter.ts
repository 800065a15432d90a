import { serviceUrl, withSession, xrpc, type Session } from "./xrpc";
import { uploadImages } from "./media";
import { byteOffset, digest, findUrls, graphemeLength, segmentText, utf8Length } from "../../providers/text";
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
 * Bluesky through the AT Protocol against any PDS. A rendition is a thread: each segment after the
 * first replies to the previous one and names the first as its root.
 *
 * Never twice: every segment's record is created with a record key derived from the rendition's delivery
 * key and the segment's position. A record key is unique in a repository, so a retried segment cannot
 * become a second post: the adapter looks the key up first and again after any failed create, and a
 * record already there counts as posted.
 */

export const BLUESKY_GRAPHEME_LIMIT = 300;
/** The post lexicon's other bound on `text`: 3000 bytes of UTF-8. */
export const BLUESKY_BYTE_LIMIT = 3000;
const COLLECTION = "app.bsky.feed.post";
const S32 = "234567abcdefghijklmnopqrstuvwxyz";

/**
 * The record key of one segment: TID-shaped (13 characters of the sortable base32 alphabet, top bit
 * clear), since the post lexicon's key type is `tid` and the PDS validates it. Its bits come from a hash
 * of the delivery key and the position, so they carry no time; the post's time is its `createdAt`.
 */
export async function recordKey(deliveryKey: string, position: number): Promise<string> {
  const bytes = await digest("bluesky-rkey", deliveryKey, position);
  let value = 0n;
  for (const b of bytes.slice(0, 8)) value = (value << 8n) | BigInt(b);
  value &= (1n << 63n) - 1n;
  let out = "";
  for (let i = 0; i < 13; i++) {
    out = S32[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** Link facets for every URL in the text, indexed in UTF-8 bytes as the protocol requires. */
export function linkFacets(text: string) {
  return findUrls(text).map(({ url, start, end }) => ({
    index: { byteStart: byteOffset(text, start), byteEnd: byteOffset(text, end) },
    features: [{ $type: "app.bsky.richtext.facet#link", uri: url }],
  }));
}

interface StoredRecord {
  uri: string;
  cid: string;
  value: Record<string, unknown>;
}

const postUrl = (handle: string, uri: string) => `https://bsky.app/profile/${handle}/post/${uri.split("/").pop()}`;
const refOf = (record: { uri: string; cid: string }, handle: string): PostRef => ({ id: record.uri, cid: record.cid, url: postUrl(handle, record.uri) });
const sorted = (segments: SegmentToPublish[]) => [...segments].sort((a, b) => a.position - b.position);

/** The record at a key, or null when there is none. Public: needs no session. */
export async function getPost(account: AccountContext, base: string, repo: string, rkey: string): Promise<StoredRecord | null> {
  try {
    return await xrpc<StoredRecord>(account, base, "com.atproto.repo.getRecord", { query: { repo, collection: COLLECTION, rkey } });
  } catch (err) {
    if (err instanceof ProviderError && (err.info.code === "RecordNotFound" || err.info.httpStatus === 404)) return null;
    throw err;
  }
}

export function checkLength(text: string, position: number): void {
  const graphemes = graphemeLength(text);
  if (graphemes > BLUESKY_GRAPHEME_LIMIT) {
    throw new ProviderError(`Segment ${position} is ${graphemes} graphemes; Bluesky allows ${BLUESKY_GRAPHEME_LIMIT}.`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  }
  if (utf8Length(text) > BLUESKY_BYTE_LIMIT) {
    throw new ProviderError(`Segment ${position} is ${utf8Length(text)} bytes of UTF-8; Bluesky allows ${BLUESKY_BYTE_LIMIT}.`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  }
}

async function createPost(account: AccountContext, s: Session, rkey: string, record: Record<string, unknown>): Promise<StoredRecord> {
  const existing = await getPost(account, s.pdsUrl, s.did, rkey);
  if (existing) return existing;
  try {
    const created = await xrpc<{ uri: string; cid: string }>(account, s.pdsUrl, "com.atproto.repo.createRecord", {
      token: s.accessJwt,
      body: { repo: s.did, collection: COLLECTION, rkey, validate: true, record },
      mutating: true,
    });
    return { ...created, value: record };
  } catch (err) {
    // Whatever went wrong (a lost answer, a key that already exists), a record at the key means it is posted.
    const after = await getPost(account, s.pdsUrl, s.did, rkey).catch(() => null);
    if (after) return after;
    throw err;
  }
}

export const blueskyAdapter: ProviderAdapter = {
  platform: "bluesky",
  textLimit: () => BLUESKY_GRAPHEME_LIMIT,
  measure: graphemeLength,

  async publish(account, rendition, progress) {
    const segments = sorted(rendition.segments);
    // Refuse before sending anything: a thread cut short by a too-long segment is worse than none.
    for (const segment of segments) if (!progress.posted.has(segment.position)) checkLength(segmentText(segment), segment.position);
    return withSession(account, async (s) => {
      let root: PostRef | null = null;
      let parent: PostRef | null = null;
      for (const segment of segments) {
        let ref = progress.posted.get(segment.position) ?? null;
        if (!ref) {
          const text = segmentText(segment);
          const facets = linkFacets(text);
          const embed = await uploadImages(account, s, segment.media);
          const record: Record<string, unknown> = {
            $type: COLLECTION,
            text,
            createdAt: new Date().toISOString(),
            ...(facets.length ? { facets } : {}),
            ...(embed ? { embed } : {}),
            ...(root && parent ? { reply: { root: { uri: root.id, cid: root.cid }, parent: { uri: parent.id, cid: parent.cid } } } : {}),
          };
          ref = refOf(await createPost(account, s, await recordKey(rendition.deliveryKey, segment.position), record), s.handle);
          await progress.onPosted(segment.position, ref);
        }
        if (!ref.cid) {
          // A ref recorded without its cid (not by this adapter): replies need it, so read it back.
          const again = await getPost(account, s.pdsUrl, s.did, ref.id.split("/").pop()!);
          if (again) ref = refOf(again, s.handle);
        }
        root ??= ref;
        parent = ref;
      }
      return { external_id: root?.id ?? null, external_url: root?.url ?? null };
    });
  },

  /** Looks up each segment's expected record key; what is there was posted. */
  async reconcile(account, rendition) {
    const found = new Map<number, PostRef>();
    return withSession(account, async (s) => {
      for (const segment of sorted(rendition.segments)) {
        const record = await getPost(account, s.pdsUrl, s.did, await recordKey(rendition.deliveryKey, segment.position));
        if (record) found.set(segment.position, refOf(record, s.handle));
      }
      return found;
    });
  },

  /**
   * Handle and DID come from the session itself. Avatar: app.bsky.actor.getProfile needs an AppView
   * behind the PDS; when that does not answer (a PDS without one, as in our tests), the profile record
   * is read from the repository and the avatar served by the PDS (com.atproto.sync.getBlob).
   */
  async readProfile(account): Promise<ProviderProfile> {
    return withSession(account, async (s) => {
      let avatar: string | null = null;
      try {
        const profile = await xrpc<{ avatar?: string }>(account, s.pdsUrl, "app.bsky.actor.getProfile", { query: { actor: s.did }, token: s.accessJwt });
        avatar = profile.avatar ?? null;
      } catch (err) {
        if (err instanceof ProviderError && err.info.kind === "authentication") throw err;
        avatar = await avatarFromRepo(account, s);
      }
      return {
        username: s.handle,
        avatar_url: avatar,
        external_account_id: s.did,
        instance_url: serviceUrl(account),
        text_limit: BLUESKY_GRAPHEME_LIMIT,
        account_kind: "personal",
      };
    });
  },

  /** Mentions, replies and quotes through app.bsky.notification.listNotifications, which needs an AppView. */
  async readMessages(account, opts): Promise<InboundMessage[]> {
    return withSession(account, async (s) => {
      const out = await appView(
        xrpc<{
          notifications: {
            uri: string;
            reason: string;
            indexedAt: string;
            author: { handle: string };
            record: { text?: string; createdAt?: string; reply?: { parent?: { uri?: string } } };
          }[];
        }>(account, s.pdsUrl, "app.bsky.notification.listNotifications", { query: { limit: "50" }, token: s.accessJwt }),
      );
      const since = opts.since ? Date.parse(opts.since) : null;
      return (out?.notifications ?? [])
        .filter((n) => n.reason === "mention" || n.reason === "reply" || n.reason === "quote")
        .filter((n) => since === null || Date.parse(n.indexedAt) > since)
        .map((n) => ({
          external_id: n.uri,
          kind: n.reason === "reply" ? ("reply" as const) : ("mention" as const),
          author_handle: n.author.handle,
          text: typeof n.record?.text === "string" ? n.record.text : "",
          url: postUrl(n.author.handle, n.uri),
          in_reply_to_external_id: n.record?.reply?.parent?.uri ?? null,
          created_at: new Date(n.record?.createdAt ?? n.indexedAt).toISOString(),
        }));
    });
  },
};

async function avatarFromRepo(account: AccountContext, s: Session): Promise<string | null> {
  try {
    const record = await xrpc<{ value?: { avatar?: { ref?: { $link?: string } } } }>(account, s.pdsUrl, "com.atproto.repo.getRecord", {
      query: { repo: s.did, collection: "app.bsky.actor.profile", rkey: "self" },
    });
    const cid = record?.value?.avatar?.ref?.$link;
    return cid ? `${s.pdsUrl}/xrpc/com.atproto.sync.getBlob?did=${encodeURIComponent(s.did)}&cid=${encodeURIComponent(cid)}` : null;
  } catch {
    return null;
  }
}

/** A PDS without an AppView answers app.bsky.* reads with "No service configured": say that plainly. */
async function appView<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof ProviderError && err.info.code === "InvalidRequest" && /no service configured/i.test(err.message)) {
      throw new ProviderError("This Bluesky server has no AppView to answer notification reads (app.bsky.notification.listNotifications).", {
        kind: "configuration",
        code: "appview_unavailable",
        httpStatus: err.info.httpStatus,
        retryable: false,
      });
    }
    throw err;
  }
}
