import { malformed, readAnswer } from "../../providers/answer";
import { youtubeWatchUrl } from "./adapter";
import { youtubeApi } from "./api";
import { ProviderError, type AccountContext } from "../../providers/types";
import { arrayOf, idOf, objectOf, optionalIdOf, optionalTextOf, timeOf, type Shape } from "../../providers/analytics/answer-shape";
import {
  excerptOf,
  READ_BUDGET,
  READ_TIMEOUT_MS,
  readingFrom,
  type BackfillState,
  type CollectedPost,
  type CollectLimits,
  type CollectResult,
  type SourcedReading,
} from "../../providers/analytics/collect";
import { walkPostPages } from "../../providers/analytics/walk-post-pages";

/**
 * YouTube through the Data API v3 (scope youtube.readonly): subscribers from `channels.list
 * part=statistics,contentDetails mine=true` (`statistics.subscriberCount`; a channel that hides it says
 * `hiddenSubscriberCount: true`, stored unavailable, never as zero), the channel's videos from its uploads playlist
 * (`contentDetails.relatedPlaylists.uploads`, read by `playlistItems.list`, 50 a page, newest first, older pages by
 * `nextPageToken`), and each page's views, likes and comments from one `videos.list part=statistics,snippet` of its
 * ids (a count the owner hides or YouTube omits is unavailable, not zero). Counts come as decimal strings (uint64).
 * Every answer is checked before anything of it is kept; a page costs two reads (and two quota units).
 */

const PAGE = 50;
const NO_ITEMS: Shape = {};
const SOURCE = "youtube_api" as const;

const reading = readingFrom(SOURCE);

/** A YouTube count: absent is undefined; present, a decimal string (or a number) of a non-negative safe integer. */
export function youtubeCountOf(v: unknown, what: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" && /^\d{1,16}$/.test(v) ? Number(v) : typeof v === "number" ? v : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw malformed("malformed_type", `${what} is not a count.`);
  return n;
}

async function get(account: AccountContext, path: string, what: string, limits: CollectLimits): Promise<Shape> {
  return objectOf(await readAnswer(await youtubeApi(account, path, { timeoutMs: limits.timeoutMs }), what), what);
}

/** The channel's subscriber reading and its uploads playlist. */
async function readChannel(account: AccountContext, limits: CollectLimits): Promise<{ subscribers: SourcedReading; uploads: string }> {
  const what = "GET /youtube/v3/channels";
  const body = await get(account, "/youtube/v3/channels?part=statistics,contentDetails&mine=true", what, limits);
  const items = body.items === undefined ? [] : arrayOf(body.items, `${what}: items`);
  if (items.length === 0) throw malformed("malformed_id", `${what}: the token names no channel.`);
  const channel = objectOf(items[0], `${what}: items[0]`);
  const stats: Shape = channel.statistics === undefined ? {} : objectOf(channel.statistics, `${what}: items[0].statistics`);
  const details = objectOf(channel.contentDetails, `${what}: items[0].contentDetails`);
  const uploads = idOf(objectOf(details.relatedPlaylists, `${what}: items[0].contentDetails.relatedPlaylists`).uploads, `${what}: relatedPlaylists.uploads`);
  const subscribers =
    stats.hiddenSubscriberCount === true
      ? reading("followers", undefined, "hidden_by_channel")
      : reading("followers", youtubeCountOf(stats.subscriberCount, `${what}: items[0].statistics.subscriberCount`));
  return { subscribers, uploads };
}

/** The statistics of up to 50 videos by id (videos the API no longer lists, deleted or private, are left out). */
async function readVideos(account: AccountContext, ids: string[], limits: CollectLimits): Promise<CollectedPost[]> {
  if (ids.length === 0) return [];
  const what = "GET /youtube/v3/videos";
  const body = await get(account, `/youtube/v3/videos?part=statistics,snippet&id=${ids.map(encodeURIComponent).join(",")}&maxResults=${PAGE}`, what, limits);
  const items = body.items === undefined ? [] : arrayOf(body.items, `${what}: items`);
  return items.map((v, i) => {
    const at = `${what}: items[${i}]`;
    const video = objectOf(v, at);
    const id = idOf(video.id, `${at}.id`);
    const snippet = objectOf(video.snippet, `${at}.snippet`);
    const stats: Shape = video.statistics === undefined ? {} : objectOf(video.statistics, `${at}.statistics`);
    return {
      externalId: id,
      publishedAt: timeOf(snippet.publishedAt, `${at}.snippet.publishedAt`),
      excerpt: excerptOf(optionalTextOf(snippet.title, `${at}.snippet.title`) ?? ""),
      url: youtubeWatchUrl(id),
      readings: [
        reading("views", youtubeCountOf(stats.viewCount, `${at}.statistics.viewCount`)),
        reading("likes", youtubeCountOf(stats.likeCount, `${at}.statistics.likeCount`)),
        reading("replies", youtubeCountOf(stats.commentCount, `${at}.statistics.commentCount`)),
      ],
    };
  });
}

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.youtube, timeoutMs: READ_TIMEOUT_MS };

export async function collectYouTube(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS, now = new Date()): Promise<CollectResult> {
  const { subscribers, uploads } = await readChannel(account, limits);
  const result: CollectResult = { account: [subscribers], posts: [], backfill: { ...state }, oldestSeen: null, reads: 1 };
  return walkPostPages(result, state, limits, now, async (token) => {
    const what = "GET /youtube/v3/playlistItems";
    const body = await get(
      account,
      `/youtube/v3/playlistItems?part=contentDetails&playlistId=${encodeURIComponent(uploads)}&maxResults=${PAGE}${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`,
      what,
      limits,
    ).catch((err: unknown) => {
      // A channel that never uploaded may have no uploads playlist yet (404 playlistNotFound): no videos, not a failure.
      if (!token && err instanceof ProviderError && err.info.code === "playlistNotFound") return NO_ITEMS;
      throw err;
    });
    const items = body.items === undefined ? [] : arrayOf(body.items, `${what}: items`);
    const ids = items.map((v, i) =>
      idOf(
        objectOf(objectOf(v, `${what}: items[${i}]`).contentDetails, `${what}: items[${i}].contentDetails`).videoId,
        `${what}: items[${i}].contentDetails.videoId`,
      ),
    );
    const next = optionalIdOf(body.nextPageToken, `${what}: nextPageToken`);
    // The statistics of the page's videos are a second read (walkPostPages counted the first).
    if (ids.length > 0) result.reads++;
    const byId = new Map((await readVideos(account, ids, limits)).map((p) => [p.externalId, p]));
    // Playlist order (newest first) kept; a video videos.list no longer answers for is skipped.
    return { posts: ids.map((id) => byId.get(id) ?? null), next };
  });
}
