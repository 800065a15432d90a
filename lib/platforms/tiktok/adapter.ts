import { awaitProcessing, type Processing } from "../../providers/platform-processing";
import { tiktokApi } from "./api";
import { postSettings, queryCreatorInfo } from "./creator";
import { UPLOAD_KEY, uploadTikTokVideo } from "./upload";
import { joinedText } from "../../providers/text";
import { recordEverySegment, theVideo } from "../../providers/video-media";
import { ProviderError, type AccountContext, type ProviderAdapter, type ProviderProfile } from "../../providers/types";

/**
 * TikTok through the Content Posting API (direct post): one video per rendition, uploaded in chunks
 * (./tiktok-upload.ts), then `POST /v2/post/publish/status/fetch/` polled until `PUBLISH_COMPLETE` (published)
 * or `FAILED` (failed with TikTok's `fail_reason`); still processing, the delivery polls again on its retry
 * schedule (./platform-processing.ts). The rendition's text is the caption (2,200 characters). Posts are
 * `SELF_ONLY`: TikTok lets an unaudited app post nothing else. Before a new upload, creator_info is read
 * (./tiktok-creator.ts): SELF_ONLY must be among the creator's options and the video within their longest
 * allowed duration, else the delivery fails at once saying so; comments, duets and stitches follow their settings.
 * A private post has no public id or URL: its external_id is the publish_id and its URL the creator's profile,
 * where they find it signed in.
 *
 * Never twice: the publish_id is saved before the first chunk and every later attempt continues it, so
 * reconciliation has nothing more to find.
 */

export const TIKTOK_CAPTION_LIMIT = 2_200;

interface TikTokStatus {
  status?: string;
  fail_reason?: string;
  uploaded_bytes?: number;
  /** Strings: read as the digits TikTok sent (./tiktok-api.ts parseTikTokAnswer). */
  publicaly_available_post_id?: string[];
}

const status = (account: AccountContext, publishId: string) =>
  tiktokApi<TikTokStatus>(account, "/v2/post/publish/status/fetch/", { method: "POST", body: { publish_id: publishId } });

export const tiktokVideoUrl = (account: Pick<AccountContext, "username">, id: string) =>
  account.username ? `https://www.tiktok.com/@${encodeURIComponent(account.username.replace(/^@/, ""))}/video/${id}` : null;

export const tiktokProfileUrl = (account: Pick<AccountContext, "username">) =>
  account.username ? `https://www.tiktok.com/@${encodeURIComponent(account.username.replace(/^@/, ""))}` : null;

export async function tiktokProcessing(account: AccountContext, publishId: string): Promise<Processing> {
  const s = await status(account, publishId);
  if (s.status === "FAILED") return { state: "failed", reason: s.fail_reason || "TikTok gave no reason" };
  if (s.status === "PUBLISH_COMPLETE") {
    // A private (SELF_ONLY) post has no public id: the publish_id is then what identifies it.
    const postId = s.publicaly_available_post_id?.[0];
    const id = postId ?? publishId;
    return { state: "done", id, url: (postId !== undefined ? tiktokVideoUrl(account, id) : tiktokProfileUrl(account)) ?? "" };
  }
  return { state: "pending", detail: s.status ?? "no status" };
}

export const tiktokAdapter: ProviderAdapter = {
  platform: "tiktok",
  textLimit: () => TIKTOK_CAPTION_LIMIT,
  measure: (text) => [...text].length,

  async publish(account, rendition, progress) {
    const segment = rendition.segments[0];
    const done = progress.posted.get(segment?.position ?? 0);
    if (done) {
      await recordEverySegment(rendition.segments, progress, done);
      return { external_id: done.id, external_url: done.url };
    }
    const caption = joinedText(rendition.segments);
    if ([...caption].length > TIKTOK_CAPTION_LIMIT)
      throw new ProviderError(`A TikTok caption is at most ${TIKTOK_CAPTION_LIMIT} characters.`, {
        kind: "validation",
        code: "text_too_long",
        retryable: false,
      });
    const video = theVideo(segment?.media ?? [], "TikTok");
    const checkpoint = await uploadTikTokVideo(
      account,
      video,
      async () => ({ title: caption, ...postSettings(await queryCreatorInfo(account), video.duration_ms) }),
      progress.uploads,
      async (id) => (await status(account, id)).uploaded_bytes ?? null,
    );
    const found = await awaitProcessing(
      () => tiktokProcessing(account, checkpoint.platformId!),
      async () => progress.uploads?.clear(UPLOAD_KEY),
    );
    const ref = { id: found.id, url: found.url || null };
    await recordEverySegment(rendition.segments, progress, ref);
    return { external_id: ref.id, external_url: ref.url };
  },

  reconcile: async () => new Map(),

  async readProfile(account): Promise<ProviderProfile> {
    const out = await tiktokApi<{ user?: { open_id?: string; username?: string; display_name?: string; avatar_url?: string } }>(
      account,
      "/v2/user/info/?fields=open_id,avatar_url,display_name,username",
    );
    return {
      username: out.user?.username ?? out.user?.display_name ?? null,
      avatar_url: out.user?.avatar_url ?? null,
      external_account_id: out.user?.open_id ?? null,
      text_limit: TIKTOK_CAPTION_LIMIT,
      account_kind: "personal",
    };
  },
};
