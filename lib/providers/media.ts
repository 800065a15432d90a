import { readCapped } from "../net/read-capped";
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
  const tooBig = () =>
    new ProviderError(`A media item is larger than the ${maxBytes} bytes the provider accepts.`, {
      kind: "validation",
      code: "media_too_large",
      retryable: false,
    });
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw tooBig();
  }
  const bytes = await readCapped(res, maxBytes); // a missing or false Content-Length cannot make us read more
  if (bytes === null) throw tooBig();
  return bytes as Uint8Array<ArrayBuffer>;
}
