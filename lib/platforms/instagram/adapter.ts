import { graphemeLength } from "../../text/graphemes";
import { INSTAGRAM_CAPTION_LIMIT, instagramPlan } from "./body";
import { joinedText } from "../../providers/text";
import { idOf, metaGraph, normalise } from "../facebook/graph";
import { awaitProcessing, type Processing } from "../../providers/platform-processing";
import {
  ProviderError,
  type AccountContext,
  type PostRef,
  type ProviderAdapter,
  type ProviderProfile,
  type PublishProgress,
  type RenditionToPublish,
} from "../../providers/types";

/**
 * Instagram professional accounts through the Instagram API with Facebook Login (Graph API v21.0): at connection
 * Herald reads the user's Pages (GET /me/accounts) and takes the first one linked to an Instagram professional
 * account (`instagram_business_account`); the account is that Instagram user, and Herald keeps the Page's token
 * (it does not expire), never the user token. A post is a media container (POST /{ig-user-id}/media), ready once
 * Instagram has fetched its image (`status_code` FINISHED), then published (POST /{ig-user-id}/media_publish).
 * Instagram has no threads: a rendition's segments are joined into one caption (a blank line between them).
 *
 * A Reel (one video) is a REELS container whose video Instagram fetches and processes for a while: its id is
 * kept in upload_checkpoints as soon as Instagram answers, `status_code` is polled a few times per attempt
 * (IN_PROGRESS, then FINISHED, or ERROR/EXPIRED with the reason in `status`), and while it is still in progress
 * the delivery retries on its schedule (./platform-processing.ts), every later attempt polling the same container.
 *
 * Never twice: a container is not a post, so only media_publish can leave an outcome unknown; after one Herald
 * reads the account's newest 50 media (GET /{ig-user-id}/media) and takes the one whose caption is the text.
 * A kept Reel container is never replaced while it may still be published: only one Instagram failed is cleared.
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

/** The upload_checkpoints key of a rendition's Reel container. */
export const REEL_CONTAINER_KEY = "instagram-reel-container";

/** One look at a Reel container. `PUBLISHED` means an earlier media_publish took effect (its answer was lost). */
export async function reelProcessing(account: AccountContext, containerId: string): Promise<Processing | { state: "published" }> {
  const out = await metaGraph<{ status_code?: string; status?: string }>(account, `/${encodeURIComponent(containerId)}`, {
    params: { fields: "status_code,status" },
  });
  const code = out?.status_code;
  if (code === "FINISHED") return { state: "done", id: containerId, url: "" };
  if (code === "PUBLISHED") return { state: "published" };
  if (code === "ERROR" || code === "EXPIRED") return { state: "failed", reason: `${code}: ${String(out?.status ?? "no reason given")}` };
  return { state: "pending", detail: `container ${code ?? "status unknown"}` };
}

/** The account's newest media whose caption is the rendition's text, if any (reconciliation). */
async function findPosted(account: AccountContext, rendition: RenditionToPublish): Promise<PostRef | null> {
  const out = await metaGraph<{ data?: { id: string; caption?: string; permalink?: string }[] }>(account, `/${igUserOf(account)}/media`, {
    params: { fields: "id,caption,permalink", limit: String(RECENT_PAGE) },
  });
  const wanted = normalise(joinedText(rendition.segments));
  const match = (out?.data ?? []).find((p) => normalise(p.caption ?? "") === wanted);
  return match ? { id: match.id, url: match.permalink ?? null } : null;
}

/**
 * A Reel: the container kept from an earlier attempt, or a new one saved before anything else; polled until
 * Instagram has processed the video; the container id (ready to publish) is the answer.
 */
async function readyReel(account: AccountContext, igUser: string, main: Record<string, string>, progress: PublishProgress): Promise<string> {
  const kept = await progress.uploads?.load(REEL_CONTAINER_KEY);
  let container = kept?.platformId ?? null;
  if (!container) {
    container = await createContainer(account, igUser, main);
    await progress.uploads?.save(REEL_CONTAINER_KEY, { session: container, platformId: container, total: 0, chunkSize: 0, offset: 0, phase: "processing" });
  }
  const id = container;
  let published = false;
  // Instagram could not process the video: a later round makes a new container rather than polling a dead one.
  await awaitProcessing(
    async () => {
      const look = await reelProcessing(account, id);
      if (look.state !== "published") return look;
      published = true;
      return { state: "done", id, url: "" };
    },
    async () => progress.uploads?.clear(REEL_CONTAINER_KEY),
  );
  if (published)
    // media_publish took effect in an earlier attempt but reconciliation did not find the post by its caption.
    throw new ProviderError("Instagram says this Reel's container is already published; Herald cannot tell which post it became.", {
      kind: "unknown",
      code: "container_published",
      retryable: false,
      outcomeUnknown: true,
      unverifiable: true,
    });
  return id;
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
      let container: string;
      if (plan.reel) container = await readyReel(account, igUser, plan.main, progress);
      else {
        const children: string[] = [];
        for (const item of plan.items) children.push(await createContainer(account, igUser, item));
        container = await createContainer(account, igUser, children.length ? { ...plan.main, children: children.join(",") } : plan.main);
        await awaitFinished(account, container);
      }
      const out = await metaGraph<{ id?: string }>(account, `/${igUser}/media_publish`, { method: "POST", params: { creation_id: container }, mutating: true });
      const id = idOf(out, "the published post");
      ref = { id, url: await permalinkOf(account, id) };
    }
    // The one post stands for every segment of the rendition.
    for (const position of positions) if (!progress.posted.has(position)) await progress.onPosted(position, ref);
    return { external_id: ref.id, external_url: ref.url };
  },

  async reconcile(account, rendition) {
    const match = await findPosted(account, rendition);
    const found = new Map<number, PostRef>();
    if (match) for (const s of rendition.segments) found.set(s.position, match);
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
