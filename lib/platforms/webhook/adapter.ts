import { errorFromResponse, providerFetch, readJson } from "../../providers/http";
import { graphemeLength } from "../../providers/text";
import { readTextCapped } from "../../net/read-capped";
import { standardWebhookHeaders } from "../../standard-webhooks";
import { ProviderError, type AccountContext, type PostRef, type ProviderAdapter, type RenditionToPublish } from "../../providers/types";

/**
 * Webhook provider (CONTRACT.md §4): one signed POST per rendition carrying every segment, in the
 * Standard Webhooks form (https://www.standardwebhooks.com/).
 */

/** A segment's text limit for webhooks: they have no platform limit; this bounds one segment's size. */
export const WEBHOOK_TEXT_LIMIT = 10_000;

/** The signing lives in lib/standard-webhooks.ts (outbound events sign the same way); kept importable from here. */
export { secretBytes, sign } from "../../standard-webhooks";

export function webhookPayload(rendition: RenditionToPublish) {
  return {
    type: "rendition.publish",
    publication_id: rendition.publicationId,
    rendition_id: rendition.renditionId,
    title: rendition.title,
    segments: [...rendition.segments]
      .sort((a, b) => a.position - b.position)
      .map((s) => ({
        position: s.position,
        title: s.title,
        body: s.body,
        url: s.url,
        media: s.media.map((m) => ({ url: m.url, mime_type: m.mime_type, alt_text: m.alt_text })),
      })),
  };
}

const stringOrNull = (v: unknown) => (typeof v === "string" && v.length > 0 && v.length <= 2048 ? v : null);

export const webhookAdapter: ProviderAdapter = {
  platform: "webhook",
  textLimit: () => WEBHOOK_TEXT_LIMIT,
  measure: graphemeLength,

  async publish(account, rendition, progress) {
    // One request carries every segment: if any was confirmed, the whole rendition was delivered.
    const done = [...progress.posted.values()][0];
    if (done) return { external_id: done.id === rendition.deliveryKey ? null : done.id, external_url: done.url };
    if (!account.url) throw new ProviderError("The webhook account has no URL.", { kind: "configuration", code: "missing_url", retryable: false });

    const body = JSON.stringify(webhookPayload(rendition));
    // The id is the same on every retry so receivers can drop duplicates; the timestamp is this attempt's.
    const id = rendition.deliveryKey;
    const headers = await standardWebhookHeaders(id, body, account.credentials.secret);

    const res = await providerFetch(account.url, { method: "POST", headers, body, allowPrivateUrls: account.allowPrivateUrls, mutating: true });
    if (!res.ok) {
      const answer = (await readTextCapped(res, 16 * 1024)) ?? ""; // a snippet for the error message, never more
      throw errorFromResponse(res, { providerName: "The webhook receiver", message: answer.replace(/\s+/g, " ").trim() || undefined, mutating: true });
    }
    const answer = await readJson<{ id?: unknown; url?: unknown }>(res);
    const external_id = stringOrNull(answer?.id);
    const external_url = stringOrNull(answer?.url);
    // Segments share the rendition's one delivery; without an id from the receiver the webhook-id names it.
    const ref: PostRef = { id: external_id ?? id, url: external_url };
    for (const segment of rendition.segments) await progress.onPosted(segment.position, ref);
    return { external_id, external_url };
  },

  /**
   * A webhook cannot be asked what it received. The documented reconciliation is to send again with
   * the same webhook-id, which receivers drop as a duplicate; so nothing is reported found here.
   */
  async reconcile() {
    return new Map<number, PostRef>();
  },

  /** Nothing to read from a webhook: the profile is what the account was created with. */
  async readProfile(account: AccountContext) {
    const host = account.url ? new URL(account.url).host : null;
    return {
      username: account.username ?? host,
      avatar_url: null,
      external_account_id: null,
      instance_url: null,
      text_limit: WEBHOOK_TEXT_LIMIT,
      account_kind: "endpoint",
    };
  },
};
