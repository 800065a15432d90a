import { withSession, xrpc, type Session } from "./xrpc";
import { digest } from "../../providers/text";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Reposts on Bluesky: an `app.bsky.feed.repost` record in the target account's repository. Its record key
 * comes from the repost attempt's id, so a retried repost finds the record it made instead of making a
 * second one: read the key first, and again after any failed create (the answer may have been lost).
 */

const COLLECTION = "app.bsky.feed.repost";
const S32 = "234567abcdefghijklmnopqrstuvwxyz";

/** TID-shaped key (13 sortable base32 characters, top bit clear) from a hash of the attempt id. */
export async function repostRecordKey(attemptId: string): Promise<string> {
  const bytes = await digest("bluesky-repost-rkey", attemptId);
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

interface RecordRef {
  uri: string;
  cid: string;
}

async function readRecord(
  account: AccountContext,
  s: Session,
  collection: string,
  repo: string,
  rkey: string,
): Promise<(RecordRef & { value: Record<string, unknown> }) | null> {
  try {
    return await xrpc(account, s.pdsUrl, "com.atproto.repo.getRecord", { query: { repo, collection, rkey } });
  } catch (err) {
    if (err instanceof ProviderError && (err.info.code === "RecordNotFound" || err.info.httpStatus === 404)) return null;
    throw err;
  }
}

/** The subject's current cid: a repost names the exact version it reposts. */
async function subjectOf(account: AccountContext, s: Session, postUri: string): Promise<RecordRef> {
  const m = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(postUri);
  if (!m) throw new ProviderError("The post to repost has no AT URI.", { kind: "validation", code: "bad_subject", retryable: false });
  const record = await readRecord(account, s, m[2], m[1], m[3]);
  if (!record) throw new ProviderError("The post to repost no longer exists.", { kind: "validation", code: "subject_not_found", retryable: false });
  return { uri: record.uri, cid: record.cid };
}

/** Reposts `postUri` from the target account with the attempt's record key; returns the repost record's URI. */
export async function blueskyRepost(account: AccountContext, attemptId: string, postUri: string): Promise<string> {
  const rkey = await repostRecordKey(attemptId);
  return withSession(account, async (s) => {
    const existing = await readRecord(account, s, COLLECTION, s.did, rkey);
    if (existing) return existing.uri;
    const subject = await subjectOf(account, s, postUri);
    try {
      const created = await xrpc<RecordRef>(account, s.pdsUrl, "com.atproto.repo.createRecord", {
        token: s.accessJwt,
        body: { repo: s.did, collection: COLLECTION, rkey, validate: true, record: { $type: COLLECTION, subject, createdAt: new Date().toISOString() } },
        mutating: true,
      });
      return created.uri;
    } catch (err) {
      const after = await readRecord(account, s, COLLECTION, s.did, rkey).catch(() => null);
      if (after) return after.uri;
      throw err;
    }
  });
}

/** Removes the repost record an attempt made; gone already counts as done. */
export async function blueskyUnrepost(account: AccountContext, attemptId: string): Promise<void> {
  const rkey = await repostRecordKey(attemptId);
  await withSession(account, async (s) => {
    if (!(await readRecord(account, s, COLLECTION, s.did, rkey))) return;
    await xrpc(account, s.pdsUrl, "com.atproto.repo.deleteRecord", { token: s.accessJwt, body: { repo: s.did, collection: COLLECTION, rkey }, mutating: true });
  });
}

/** Whether the attempt's repost record exists (tests and reconciliation). */
export async function blueskyRepostExists(account: AccountContext, attemptId: string): Promise<boolean> {
  const rkey = await repostRecordKey(attemptId);
  return withSession(account, async (s) => (await readRecord(account, s, COLLECTION, s.did, rkey)) !== null);
}
