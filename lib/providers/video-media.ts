import { ProviderError, type MediaRef, type PostRef, type PublishProgress, type SegmentToPublish } from "./types";

/** The one video of a rendition, or a validation error saying why not. */
export function theVideo(media: MediaRef[], platformName: string): MediaRef {
  const videos = media.filter((m) => m.mime_type.startsWith("video/"));
  if (videos.length !== 1 || media.length !== 1)
    throw new ProviderError(
      `A ${platformName} post is exactly one video; this rendition has ${videos.length} video(s) and ${media.length - videos.length} other item(s).`,
      {
        kind: "validation",
        code: "video_required",
        retryable: false,
      },
    );
  return videos[0];
}

/** The one video post stands for every segment of the rendition. */
export async function recordEverySegment(segments: SegmentToPublish[], progress: PublishProgress, ref: PostRef): Promise<void> {
  for (const s of segments) if (!progress.posted.has(s.position)) await progress.onPosted(s.position, ref);
}
