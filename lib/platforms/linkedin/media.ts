import { linkedinApi, linkedinError, linkedinHeaders, tokenOf } from "./api";
import type { LinkedInImage } from "./body";
import { fetchMedia } from "../../providers/media";
import { providerFetch } from "../../providers/http";
import { ProviderError, type AccountContext, type MediaRef } from "../../providers/types";

/**
 * Images for a LinkedIn post through the Images API: `POST /rest/images?action=initializeUpload` with the
 * member as owner answers an upload URL and the image URN; the bytes are PUT to that URL; the URN then goes
 * in the post. An upload repeated by a retry only leaves an unused image, never a second post. Herald sends
 * still images (LinkedIn's video needs its multi-part video upload, which Herald does not do).
 */

export const LINKEDIN_MAX_IMAGES = 20;
/** LinkedIn accepts images up to 36,152,320 pixels; bytes are bounded here to keep a delivery's memory small. */
const MAX_BYTES = 20 * 1024 * 1024;

export function checkLinkedInMedia(media: Pick<MediaRef, "mime_type">[]): void {
  const other = media.find((m) => !m.mime_type.startsWith("image/"));
  if (other)
    throw new ProviderError(`LinkedIn posts from Herald carry images only; ${other.mime_type} is not supported.`, {
      kind: "validation",
      code: "media_unsupported",
      retryable: false,
    });
  if (media.length > LINKEDIN_MAX_IMAGES)
    throw new ProviderError(`A LinkedIn post carries at most ${LINKEDIN_MAX_IMAGES} images.`, { kind: "validation", code: "too_many_media", retryable: false });
}

export async function uploadLinkedInImages(account: AccountContext, owner: string, media: MediaRef[]): Promise<LinkedInImage[]> {
  checkLinkedInMedia(media);
  const out: LinkedInImage[] = [];
  for (const item of media) {
    const bytes = await fetchMedia(account, item, MAX_BYTES);
    const init = await linkedinApi<{ value?: { uploadUrl?: string; image?: string } }>(account, "/rest/images?action=initializeUpload", {
      method: "POST",
      body: { initializeUploadRequest: { owner } },
    });
    const uploadUrl = init?.value?.uploadUrl;
    const urn = init?.value?.image;
    if (typeof uploadUrl !== "string" || typeof urn !== "string")
      throw new ProviderError("LinkedIn answered the image upload without its URL or URN.", { kind: "unknown", code: "malformed_id", retryable: true });
    const put = await providerFetch(uploadUrl, {
      method: "PUT",
      headers: { ...linkedinHeaders(tokenOf(account)), "content-type": item.mime_type },
      body: bytes,
      allowPrivateUrls: account.allowPrivateUrls,
      timeoutMs: 60_000,
    });
    if (!put.ok) throw await linkedinError(put);
    await put.body?.cancel();
    out.push({ urn, altText: item.alt_text });
  }
  return out;
}
