import { readJson } from "../../providers/http";
import { awaitProcessing, type Processing } from "../../providers/platform-processing";
import { youtubeApi } from "./api";
import { UPLOAD_KEY, uploadYouTubeVideo, type YouTubeVideoMeta } from "./upload";
import { joinedText } from "../../providers/text";
import { recordEverySegment, theVideo } from "../../providers/video-media";
import { ProviderError, type AccountContext, type ProviderAdapter, type ProviderProfile, type RenditionToPublish } from "../../providers/types";

/**
 * YouTube through the Data API v3: one video per rendition, uploaded with the resumable protocol in chunks
 * (./youtube-upload.ts), then polled (`videos.list part=processingDetails,status`) until YouTube has processed
 * it: `succeeded` publishes the rendition with the video's watch URL, `failed`/`rejected` fails it with
 * YouTube's reason; still processing, the delivery polls again on its retry schedule (./platform-processing.ts).
 * The title is the rendition's (else the first line of its text), the text the description; videos are uploaded
 * `private` (unverified Google apps can upload nothing else, and a person makes a video public on YouTube).
 *
 * Never twice: the video exists at YouTube only once its last chunk is in, and the saved checkpoint (session,
 * then video id) is what every later attempt continues from, so reconciliation has nothing more to find.
 */

export const YOUTUBE_TITLE_LIMIT = 100;
export const YOUTUBE_DESCRIPTION_LIMIT = 5_000;

export const youtubeWatchUrl = (id: string) => `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`;

/** YouTube refuses `<` and `>` in titles; the title is required and at most 100 characters. */
export function youtubeMeta(rendition: RenditionToPublish): YouTubeVideoMeta {
  const segment = rendition.segments[0];
  const body = joinedText(rendition.segments);
  const rawTitle = (rendition.title ?? segment?.title ?? body.split("\n")[0] ?? "").replace(/[<>]/g, "").trim();
  const title = [...(rawTitle || "Untitled")].slice(0, YOUTUBE_TITLE_LIMIT).join("");
  if ([...body].length > YOUTUBE_DESCRIPTION_LIMIT)
    throw new ProviderError(`A YouTube description is at most ${YOUTUBE_DESCRIPTION_LIMIT} characters.`, {
      kind: "validation",
      code: "text_too_long",
      retryable: false,
    });
  return { title, description: body.replace(/[<>]/g, ""), privacyStatus: "private" };
}

interface VideoStatus {
  items?: {
    id?: string;
    status?: { uploadStatus?: string; failureReason?: string; rejectionReason?: string };
    processingDetails?: { processingStatus?: string; processingFailureReason?: string };
  }[];
}

/** One look at the video's processing. */
export async function youtubeProcessing(account: AccountContext, videoId: string): Promise<Processing> {
  const res = await youtubeApi(account, `/youtube/v3/videos?part=processingDetails,status&id=${encodeURIComponent(videoId)}`);
  const item = (await readJson<VideoStatus>(res))?.items?.[0];
  if (!item) return { state: "pending", detail: "the video is not listed yet" };
  const upload = item.status?.uploadStatus;
  const processing = item.processingDetails?.processingStatus;
  if (upload === "failed" || upload === "rejected" || upload === "deleted" || processing === "failed" || processing === "terminated")
    return {
      state: "failed",
      reason: item.status?.rejectionReason ?? item.status?.failureReason ?? item.processingDetails?.processingFailureReason ?? `${upload ?? processing}`,
    };
  if (processing === "succeeded" || upload === "processed") return { state: "done", id: videoId, url: youtubeWatchUrl(videoId) };
  return { state: "pending", detail: `processing ${processing ?? upload ?? "unknown"}` };
}

export const youtubeAdapter: ProviderAdapter = {
  platform: "youtube",
  textLimit: () => YOUTUBE_DESCRIPTION_LIMIT,
  measure: (text) => [...text].length,

  async publish(account, rendition, progress) {
    const done = progress.posted.get(rendition.segments[0]?.position ?? 0);
    if (done) {
      await recordEverySegment(rendition.segments, progress, done);
      return { external_id: done.id, external_url: done.url };
    }
    const meta = youtubeMeta(rendition);
    const checkpoint = await uploadYouTubeVideo(account, theVideo(rendition.segments[0]?.media ?? [], "YouTube"), meta, progress.uploads);
    const videoId = checkpoint.platformId!;
    const ref = await awaitProcessing(
      () => youtubeProcessing(account, videoId),
      async () => progress.uploads?.clear(UPLOAD_KEY),
    );
    await recordEverySegment(rendition.segments, progress, ref);
    return { external_id: ref.id, external_url: ref.url };
  },

  // The checkpoint, not the channel's uploads, says what an earlier attempt did (see above).
  reconcile: async () => new Map(),

  async readProfile(account): Promise<ProviderProfile> {
    const res = await youtubeApi(account, "/youtube/v3/channels?part=snippet&mine=true");
    const channel = (
      (await res.json()) as { items?: { id?: string; snippet?: { title?: string; customUrl?: string; thumbnails?: { default?: { url?: string } } } }[] }
    ).items?.[0];
    return {
      username: channel?.snippet?.customUrl ?? channel?.snippet?.title ?? null,
      avatar_url: channel?.snippet?.thumbnails?.default?.url ?? null,
      external_account_id: channel?.id ?? null,
      text_limit: YOUTUBE_DESCRIPTION_LIMIT,
      account_kind: "channel",
    };
  },
};
