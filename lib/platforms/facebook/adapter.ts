import { graphemeLength } from "../../text/graphemes";
import { joinedText } from "../../providers/text";
import { idOf, metaGraph, normalise } from "./graph";
import { ProviderError, type AccountContext, type MediaRef, type PostRef, type ProviderAdapter, type ProviderProfile } from "../../providers/types";

/**
 * Facebook Pages through the Graph API (v21.0). A connection is ONE Page: at connection Herald reads the user's
 * Pages (GET /me/accounts) and keeps the first one's id and Page access token (a Page token derived from a
 * long-lived user token does not expire), never the user token. Facebook Page posts have no reply chains, so a
 * rendition's segments are joined into one post (a blank line between them), like LinkedIn.
 *
 * - Text (and links, inside the text): POST /{page-id}/feed {message}.
 * - One image: POST /{page-id}/photos {url, caption, alt_text_custom}: Facebook fetches the image from Herald's
 *   signed media URL; the answer's `post_id` is the post.
 * - Several: each image POST /{page-id}/photos {url, published: false, alt_text_custom}, then one feed post
 *   with `attached_media[i]={"media_fbid": …}`.
 *
 * Never twice: no idempotency key; after an unknown outcome Herald reads the Page's newest 50 published posts
 * (GET /{page-id}/published_posts) and takes the one whose message is the rendition's text.
 */

export const FACEBOOK_TEXT_LIMIT = 63_206;
export const FACEBOOK_MAX_IMAGES = 10;
const RECENT_PAGE = 50;

const postUrl = (id: string) => `https://www.facebook.com/${id}`;

function checkFacebook(text: string, media: MediaRef[]): void {
  const length = graphemeLength(text);
  if (length > FACEBOOK_TEXT_LIMIT)
    throw new ProviderError(`The post is ${length} characters; Facebook allows ${FACEBOOK_TEXT_LIMIT}.`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  const other = media.find((m) => !m.mime_type.startsWith("image/"));
  if (other)
    throw new ProviderError(`Facebook posts from Herald carry images only; ${other.mime_type} is not supported.`, {
      kind: "validation",
      code: "media_unsupported",
      retryable: false,
    });
  if (media.length > FACEBOOK_MAX_IMAGES)
    throw new ProviderError(`A Facebook post from Herald carries at most ${FACEBOOK_MAX_IMAGES} images.`, {
      kind: "validation",
      code: "too_many_media",
      retryable: false,
    });
}

function pageOf(account: AccountContext): string {
  if (account.externalAccountId) return encodeURIComponent(account.externalAccountId);
  throw new ProviderError("The Facebook account does not name its Page; connect it again.", { kind: "configuration", code: "missing_page", retryable: false });
}

const withAlt = (params: Record<string, string>, alt: string | null) => (alt ? { ...params, alt_text_custom: alt } : params);

async function post(account: AccountContext, text: string, media: MediaRef[]): Promise<string> {
  const page = pageOf(account);
  if (media.length === 1) {
    const params = withAlt({ url: media[0].url, ...(text ? { caption: text } : {}) }, media[0].alt_text);
    const out = await metaGraph<{ id?: string; post_id?: string }>(account, `/${page}/photos`, { method: "POST", params, mutating: true });
    return idOf({ id: out?.post_id ?? out?.id }, "the photo post");
  }
  const attached: Record<string, string> = {};
  for (const [i, m] of media.entries()) {
    // Unpublished photos are not posts: only the feed post below can leave an outcome unknown.
    const out = await metaGraph<{ id?: string }>(account, `/${page}/photos`, {
      method: "POST",
      params: withAlt({ url: m.url, published: "false" }, m.alt_text),
    });
    attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: idOf(out, "a photo", false) });
  }
  const out = await metaGraph<{ id?: string }>(account, `/${page}/feed`, { method: "POST", params: { message: text, ...attached }, mutating: true });
  return idOf(out, "the post");
}

export const facebookAdapter: ProviderAdapter = {
  platform: "facebook",
  textLimit: () => FACEBOOK_TEXT_LIMIT,
  measure: graphemeLength,

  async publish(account, rendition, progress) {
    const positions = rendition.segments.map((s) => s.position).sort((a, b) => a - b);
    let ref: PostRef | undefined = positions.map((p) => progress.posted.get(p)).find((r) => r);
    if (!ref) {
      const text = joinedText(rendition.segments);
      const media = rendition.segments.flatMap((s) => s.media);
      checkFacebook(text, media);
      const id = await post(account, text, media);
      ref = { id, url: postUrl(id) };
    }
    // The one post stands for every segment of the rendition.
    for (const position of positions) if (!progress.posted.has(position)) await progress.onPosted(position, ref);
    return { external_id: ref.id, external_url: ref.url };
  },

  async reconcile(account, rendition) {
    const out = await metaGraph<{ data?: { id: string; message?: string; permalink_url?: string }[] }>(account, `/${pageOf(account)}/published_posts`, {
      params: { fields: "id,message,permalink_url", limit: String(RECENT_PAGE) },
    });
    const wanted = normalise(joinedText(rendition.segments));
    const match = (out?.data ?? []).find((p) => normalise(p.message ?? "") === wanted);
    const found = new Map<number, PostRef>();
    if (match) for (const s of rendition.segments) found.set(s.position, { id: match.id, url: match.permalink_url ?? postUrl(match.id) });
    return found;
  },

  /**
   * At connection (no page_id in the credentials yet) the token is the user's: the first of the user's Pages becomes the account, and its Page
   * token replaces the user token in what Herald keeps (it does not expire).
   */
  async readProfile(account): Promise<ProviderProfile> {
    if (account.credentials.page_id) {
      // A connected Page, read with its own token (refreshing the account's metadata).
      const page = await metaGraph<{ id: string; name?: string; picture?: { data?: { url?: string } } }>(account, `/${pageOf(account)}`, {
        params: { fields: "id,name,picture" },
      });
      return {
        username: page.name ?? null,
        avatar_url: page.picture?.data?.url ?? null,
        external_account_id: page.id,
        text_limit: FACEBOOK_TEXT_LIMIT,
        account_kind: "page",
      };
    }
    const out = await metaGraph<{ data?: { id: string; name?: string; access_token?: string; picture?: { data?: { url?: string } } }[] }>(
      account,
      "/me/accounts",
      { params: { fields: "id,name,access_token,picture" } },
    );
    const page = (out?.data ?? []).find((p) => typeof p.access_token === "string");
    if (!page?.access_token)
      throw new ProviderError("The Facebook user manages no Page Herald may post to.", { kind: "validation", code: "no_page", retryable: false });
    return {
      username: page.name ?? null,
      avatar_url: page.picture?.data?.url ?? null,
      external_account_id: page.id,
      text_limit: FACEBOOK_TEXT_LIMIT,
      account_kind: "page",
      // page_id says the token is the Page's (the connection's own token is the user's).
      credentials: { access_token: page.access_token, page_id: page.id },
      credentialsExpireInSeconds: null,
    };
  },
};
