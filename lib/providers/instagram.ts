import { graphemeLength } from "../text/graphemes";
import { INSTAGRAM_CAPTION_LIMIT, instagramPlan } from "./instagram-body";
import { joinedText } from "./linkedin-text";
import { idOf, metaGraph, normalise } from "./meta-graph";
import { ProviderError, type AccountContext, type PostRef, type ProviderAdapter, type ProviderProfile } from "./types";

/**
 * Instagram professional accounts through the Instagram API with Facebook Login (Graph API v21.0): at connection
 * Herald reads the user's Pages (GET /me/accounts) and takes the first one linked to an Instagram professional
 * account (`instagram_business_account`); the account is that Instagram user, and Herald keeps the Page's token
 * (it does not expire), never the user token. A post is a media container (POST /{ig-user-id}/media), ready once
 * Instagram has fetched its image (`status_code` FINISHED), then published (POST /{ig-user-id}/media_publish).
 * Instagram has no threads: a rendition's segments are joined into one caption (a blank line between them).
 *
 * Never twice: a container is not a post, so only media_publish can leave an outcome unknown; after one Herald
 * reads the account's newest 50 media (GET /{ig-user-id}/media) and takes the one whose caption is the text.
 */

const RECENT_PAGE = 50;
/** Waits between reads of a container's status (Instagram fetches the image before it can be published). */
const PROCESSING_WAITS_MS = [0, 500, 1000, 2000, 4000, 8000];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function igUserOf(account: AccountContext): string {
  if (account.externalAccountId) return encodeURIComponent(account.externalAccountId);
  throw new ProviderError("The Instagram account does not name its Instagram user; connect it again.", {
    kind: "configuration",
    code: "missing_ig_user",
    retryable: false,
  });
}

async function createContainer(account: AccountContext, igUser: string, params: Record<string, string>): Promise<string> {
  return idOf(await metaGraph<{ id?: string }>(account, `/${igUser}/media`, { method: "POST", params }), "a media container", false);
}

/** Waits until Instagram has fetched the container's media; nothing is published while it has not. */
async function awaitFinished(account: AccountContext, containerId: string): Promise<void> {
  for (const wait of PROCESSING_WAITS_MS) {
    await sleep(wait);
    const out = await metaGraph<{ status_code?: string; status?: string }>(account, `/${encodeURIComponent(containerId)}`, {
      params: { fields: "status_code,status" },
    });
    if (out?.status_code === "FINISHED" || out?.status_code === "PUBLISHED") return;
    if (out?.status_code === "ERROR" || out?.status_code === "EXPIRED")
      throw new ProviderError(`Instagram could not prepare the post's media (${String(out.status ?? out.status_code).slice(0, 200)}).`, {
        kind: "validation",
        code: "media_processing_failed",
        retryable: false,
      });
  }
  throw new ProviderError("Instagram is still preparing the post's media; nothing was published.", {
    kind: "unavailable",
    code: "media_processing",
    retryable: true,
  });
}

async function permalinkOf(account: AccountContext, mediaId: string): Promise<string | null> {
  try {
    const out = await metaGraph<{ permalink?: string }>(account, `/${encodeURIComponent(mediaId)}`, { params: { fields: "permalink" } });
    return typeof out?.permalink === "string" ? out.permalink : null;
  } catch {
    // The post is published either way; its link is a nicety.
    return null;
  }
}

type PageWithIg = { id: string; access_token?: string; instagram_business_account?: { id: string; username?: string; profile_picture_url?: string } };

export const instagramAdapter: ProviderAdapter = {
  platform: "instagram",
  textLimit: () => INSTAGRAM_CAPTION_LIMIT,
  measure: graphemeLength,

  async publish(account, rendition, progress) {
    const positions = rendition.segments.map((s) => s.position).sort((a, b) => a - b);
    let ref: PostRef | undefined = positions.map((p) => progress.posted.get(p)).find((r) => r);
    if (!ref) {
      const plan = instagramPlan(
        joinedText(rendition.segments),
        rendition.segments.flatMap((s) => s.media),
      );
      const igUser = igUserOf(account);
      const children: string[] = [];
      for (const item of plan.items) children.push(await createContainer(account, igUser, item));
      const container = await createContainer(account, igUser, children.length ? { ...plan.main, children: children.join(",") } : plan.main);
      await awaitFinished(account, container);
      const out = await metaGraph<{ id?: string }>(account, `/${igUser}/media_publish`, { method: "POST", params: { creation_id: container }, mutating: true });
      const id = idOf(out, "the published post");
      ref = { id, url: await permalinkOf(account, id) };
    }
    // The one post stands for every segment of the rendition.
    for (const position of positions) if (!progress.posted.has(position)) await progress.onPosted(position, ref);
    return { external_id: ref.id, external_url: ref.url };
  },

  async reconcile(account, rendition) {
    const out = await metaGraph<{ data?: { id: string; caption?: string; permalink?: string }[] }>(account, `/${igUserOf(account)}/media`, {
      params: { fields: "id,caption,permalink", limit: String(RECENT_PAGE) },
    });
    const wanted = normalise(joinedText(rendition.segments));
    const match = (out?.data ?? []).find((p) => normalise(p.caption ?? "") === wanted);
    const found = new Map<number, PostRef>();
    if (match) for (const s of rendition.segments) found.set(s.position, { id: match.id, url: match.permalink ?? null });
    return found;
  },

  /**
   * At connection (no page_id in the credentials yet) the token is the user's: the first Page linked to an
   * Instagram professional account gives the account and the Page token kept in place of the user token.
   */
  async readProfile(account): Promise<ProviderProfile> {
    if (account.credentials.page_id) {
      const me = await metaGraph<{ id: string; username?: string; profile_picture_url?: string }>(account, `/${igUserOf(account)}`, {
        params: { fields: "id,username,profile_picture_url" },
      });
      return {
        username: me.username ?? null,
        avatar_url: me.profile_picture_url ?? null,
        external_account_id: me.id,
        text_limit: INSTAGRAM_CAPTION_LIMIT,
        account_kind: "business",
      };
    }
    const out = await metaGraph<{ data?: PageWithIg[] }>(account, "/me/accounts", {
      params: { fields: "id,name,access_token,instagram_business_account{id,username,profile_picture_url}" },
    });
    const page = (out?.data ?? []).find((p) => typeof p.access_token === "string" && p.instagram_business_account?.id);
    const ig = page?.instagram_business_account;
    if (!page?.access_token || !ig)
      throw new ProviderError("None of the user's Facebook Pages is linked to an Instagram professional account.", {
        kind: "validation",
        code: "no_instagram_account",
        retryable: false,
      });
    return {
      username: ig.username ?? null,
      avatar_url: ig.profile_picture_url ?? null,
      external_account_id: ig.id,
      text_limit: INSTAGRAM_CAPTION_LIMIT,
      account_kind: "business",
      // page_id says the token is the Page's (the connection's own token is the user's).
      credentials: { access_token: page.access_token, page_id: page.id },
      credentialsExpireInSeconds: null,
    };
  },
};
