import { errorFromResponse, providerFetch } from "./http";
import { ProviderError, type AccountContext, type MediaRef } from "./types";

/**
 * The bytes of a media item to upload to a provider, read from its URL (Herald's own media file URL),
 * under the same outbound URL policy, refusing anything larger than `maxBytes`.
 */
export async function fetchMedia(account: Pick<AccountContext, "allowPrivateUrls">, media: MediaRef, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const res = await providerFetch(media.url, { allowPrivateUrls: account.allowPrivateUrls, timeoutMs: 30_000 });
  if (!res.ok) throw errorFromResponse(res, { providerName: "The media URL" });
  const declared = Number(res.headers.get("content-length") ?? 0);
  const tooBig = () => new ProviderError(`A media item is larger than the ${maxBytes} bytes the provider accepts.`, { kind: "validation", code: "media_too_large", retryable: false });
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw tooBig();
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length > maxBytes) throw tooBig();
  return bytes;
}
