import { readCapped } from "../net/read-capped";
import { errorFromResponse, providerFetch } from "./http";
import { ProviderError, type AccountContext, type MediaRef } from "./types";

/**
 * A media file read by byte ranges from its (signed) Herald URL, which answers `Range: bytes=a-b` with 206
 * (functions/media/file.ts): what lets a chunked upload hold one chunk at a time, never the whole file.
 */

const unreadable = (why: string) =>
  new ProviderError(`The media file could not be read: ${why}.`, { kind: "unavailable", code: "media_unreadable", retryable: true });

/** `Content-Range: bytes a-b/total` → its parts. */
export function parseContentRange(value: string | null): { start: number; end: number; total: number } | null {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value?.trim() ?? "");
  return m ? { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) } : null;
}

async function rangeResponse(account: Pick<AccountContext, "allowPrivateUrls">, media: MediaRef, start: number, end: number) {
  const res = await providerFetch(media.url, {
    allowPrivateUrls: account.allowPrivateUrls,
    timeoutMs: 60_000,
    headers: { range: `bytes=${start}-${end - 1}` },
  });
  if (!res.ok) {
    // Herald's own media URL refusing is not the account's credentials failing (as a platform's 401/403 would be):
    // an expired signature or a passing fault; the next attempt signs a fresh URL and resumes.
    const err = errorFromResponse(res, { providerName: "The media URL" });
    await res.body?.cancel();
    throw new ProviderError(err.message, { kind: "unavailable", code: "media_unreadable", httpStatus: res.status, retryable: true });
  }
  const range = parseContentRange(res.headers.get("content-range"));
  if (res.status !== 206 || !range || range.start !== start) {
    await res.body?.cancel();
    throw unreadable("the media URL did not answer the byte range asked");
  }
  return { res, range };
}

/** The file's size in bytes (from a one-byte range's Content-Range). */
export async function mediaSize(account: Pick<AccountContext, "allowPrivateUrls">, media: MediaRef): Promise<number> {
  const { res, range } = await rangeResponse(account, media, 0, 1);
  await res.body?.cancel();
  return range.total;
}

/** The bytes [start, end) of the file. */
export async function readMediaRange(
  account: Pick<AccountContext, "allowPrivateUrls">,
  media: MediaRef,
  start: number,
  end: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const { res } = await rangeResponse(account, media, start, end);
  // A declared length of exactly the range is read in one buffer; anything else is read under the cap (no copy kept twice).
  const bytes = Number(res.headers.get("content-length")) === end - start ? new Uint8Array(await res.arrayBuffer()) : await readCapped(res, end - start);
  if (!bytes || bytes.byteLength !== end - start) throw unreadable(`expected ${end - start} bytes from ${start}`);
  return bytes as Uint8Array<ArrayBuffer>;
}
