import { mastodonApi } from "./api";
import { fetchMedia } from "../../providers/media";
import { ProviderError, type AccountContext, type MediaRef } from "../../providers/types";

/** Mastodon's default attachment bounds: 4 per status; 16 MB images, 99 MB video (servers may differ). */
export const MASTODON_MAX_MEDIA = 4;
const MAX_BYTES = 99 * 1024 * 1024;

/**
 * Uploads a segment's media (POST /api/v2/media, multipart with the alt text as `description`) and
 * returns the attachment ids for the status. An upload repeated by a retry only leaves an unattached
 * attachment, which Mastodon removes by itself; it never creates a second status.
 */
export async function uploadMedia(account: AccountContext, media: MediaRef[]): Promise<string[]> {
  if (media.length > MASTODON_MAX_MEDIA)
    throw new ProviderError(`A Mastodon status carries at most ${MASTODON_MAX_MEDIA} attachments.`, {
      kind: "validation",
      code: "too_many_media",
      retryable: false,
    });
  const ids: string[] = [];
  for (const item of media) {
    const bytes = await fetchMedia(account, item, MAX_BYTES);
    const form = new FormData();
    form.append("file", new Blob([bytes], { type: item.mime_type }), `media.${item.mime_type.split("/")[1]?.replace(/[^a-z0-9]/gi, "") || "bin"}`);
    if (item.alt_text) form.append("description", item.alt_text);
    const attachment = await mastodonApi<{ id: string }>(account, "/api/v2/media", { method: "POST", form });
    ids.push(attachment.id);
  }
  return ids;
}
