import { tiktokApi } from "./api";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * What TikTok lets this creator post right now (Content Posting API "Direct Post": query creator info before
 * each post, `POST /v2/post/publish/creator_info/query/`): the privacy levels offered, whether comments, duets
 * and stitches are off in their settings, and the longest video they may post. Herald posts SELF_ONLY (an
 * unaudited app may post nothing else); the post follows the creator's settings rather than overriding them.
 */

export type TikTokPrivacy = "SELF_ONLY" | "MUTUAL_FOLLOW_FRIENDS" | "FOLLOWER_OF_CREATOR" | "PUBLIC_TO_EVERYONE";

export const HERALD_TIKTOK_PRIVACY: TikTokPrivacy = "SELF_ONLY";

export interface TikTokCreatorInfo {
  privacy_level_options?: unknown;
  comment_disabled?: unknown;
  duet_disabled?: unknown;
  stitch_disabled?: unknown;
  max_video_post_duration_sec?: unknown;
}

export interface TikTokPostSettings {
  privacy_level: TikTokPrivacy;
  disable_comment: boolean;
  disable_duet: boolean;
  disable_stitch: boolean;
}

const refused = (message: string, code: string) => new ProviderError(message, { kind: "validation", code, retryable: false });

/**
 * The post's settings from the creator's info, or a non-retryable refusal saying why (the privacy level is not
 * offered; the video is longer than the creator may post). `durationMs`: the video's length when known. Pure.
 */
export function postSettings(info: TikTokCreatorInfo, durationMs: number | null | undefined): TikTokPostSettings {
  const options = Array.isArray(info.privacy_level_options) ? info.privacy_level_options.filter((o): o is string => typeof o === "string") : [];
  if (!options.includes(HERALD_TIKTOK_PRIVACY))
    throw refused(
      `This TikTok account cannot post ${HERALD_TIKTOK_PRIVACY} (the only privacy Herald posts with) right now; TikTok offers ${options.length ? options.join(", ") : "no privacy level"}.`,
      "privacy_level_unavailable",
    );
  const max = typeof info.max_video_post_duration_sec === "number" ? info.max_video_post_duration_sec : null;
  if (max !== null && typeof durationMs === "number" && durationMs > max * 1000)
    throw refused(`The video is ${Math.ceil(durationMs / 1000)} s long; this TikTok account may post videos of at most ${max} s.`, "video_too_long");
  return {
    privacy_level: HERALD_TIKTOK_PRIVACY,
    disable_comment: info.comment_disabled === true,
    disable_duet: info.duet_disabled === true,
    disable_stitch: info.stitch_disabled === true,
  };
}

export async function queryCreatorInfo(account: AccountContext): Promise<TikTokCreatorInfo> {
  return tiktokApi<TikTokCreatorInfo>(account, "/v2/post/publish/creator_info/query/", { method: "POST", body: {} });
}
