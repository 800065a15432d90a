import { malformed, readAnswer } from "../../providers/answer";
import { tiktokError, tiktokResponse } from "./api";
import type { AccountContext } from "../../providers/types";
import { arrayOf, idOf, objectOf, optionalCountOf, optionalTextOf, type Shape } from "../../providers/analytics/answer-shape";
import {
  excerptOf,
  READ_BUDGET,
  READ_TIMEOUT_MS,
  readingFrom,
  type BackfillState,
  type CollectedPost,
  type CollectLimits,
  type CollectResult,
} from "../../providers/analytics/collect";
import { walkPostPages } from "../../providers/analytics/walk-post-pages";

/**
 * TikTok through the Display API (developers.tiktok.com "Get User Info" and "List Videos"; scopes
 * user.info.stats and video.list): followers from `GET /v2/user/info/?fields=follower_count`, the account's
 * public videos from `POST /v2/video/list/` (20 a page, the most TikTok gives, newest first; `cursor`, a create
 * time in milliseconds, and `has_more` page back) with their views, likes, comments (replies) and shares
 * (reposts: a share is TikTok's passing a video on). Every answer is checked before anything of it is kept,
 * including TikTok's `error.code`, which must be `ok`.
 *
 * Only public videos are listed: a post Herald made SELF_ONLY (lib/platforms/tiktok/adapter.ts) is not among them.
 */

const PAGE = 20;
const SOURCE = "tiktok_api" as const;
const FIELDS = "id,create_time,title,share_url,view_count,like_count,comment_count,share_count";

const reading = readingFrom(SOURCE);

/** `create_time`: UTC epoch seconds. */
function epochSecondsOf(v: unknown, what: string): Date {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) throw malformed("malformed_type", `${what} is not a time.`);
  return new Date(v * 1000);
}

/** TikTok's answer `data`, once its `error.code` says `ok` (TikTok may answer 200 with an error). */
async function dataOf(res: Response, what: string): Promise<Shape> {
  const body = objectOf(await readAnswer(res, what), what);
  const error: Shape = body.error === undefined ? {} : objectOf(body.error, `${what}: error`);
  if (error.code !== undefined && error.code !== "ok") throw tiktokError(res, body);
  return objectOf(body.data, `${what}: data`);
}

function postOf(v: unknown, at: string): CollectedPost {
  const t = objectOf(v, at);
  return {
    externalId: idOf(t.id, `${at}.id`),
    publishedAt: epochSecondsOf(t.create_time, `${at}.create_time`),
    excerpt: excerptOf(optionalTextOf(t.title, `${at}.title`) ?? ""),
    url: optionalTextOf(t.share_url, `${at}.share_url`),
    readings: [
      reading("views", optionalCountOf(t.view_count, `${at}.view_count`)),
      reading("likes", optionalCountOf(t.like_count, `${at}.like_count`)),
      reading("replies", optionalCountOf(t.comment_count, `${at}.comment_count`)),
      reading("reposts", optionalCountOf(t.share_count, `${at}.share_count`)),
    ],
  };
}

/** The paging cursor TikTok answers (a number of milliseconds), kept as text; absent or `has_more: false` ends paging. */
function nextCursor(data: Shape, what: string): string | null {
  if (data.has_more !== true) return null;
  const c = data.cursor;
  if (typeof c !== "number" || !Number.isSafeInteger(c) || c < 0) throw malformed("malformed_type", `${what}: cursor is not a time.`);
  return String(c);
}

const DEFAULT_LIMITS: CollectLimits = { budget: READ_BUDGET.tiktok, timeoutMs: READ_TIMEOUT_MS };

export async function collectTikTok(account: AccountContext, state: BackfillState, limits = DEFAULT_LIMITS, now = new Date()): Promise<CollectResult> {
  const who = "GET /v2/user/info/";
  const data = await dataOf(await tiktokResponse(account, "/v2/user/info/?fields=follower_count", { timeoutMs: limits.timeoutMs }), who);
  const user = objectOf(data.user, `${who}: data.user`);
  const result: CollectResult = {
    account: [reading("followers", optionalCountOf(user.follower_count, `${who}: data.user.follower_count`))],
    posts: [],
    backfill: { ...state },
    oldestSeen: null,
    reads: 1,
  };
  return walkPostPages(result, state, limits, now, async (cursor: string | null) => {
    const what = "POST /v2/video/list/";
    const body = { max_count: PAGE, ...(cursor !== null ? { cursor: Number(cursor) } : {}) };
    const page = await dataOf(await tiktokResponse(account, `/v2/video/list/?fields=${FIELDS}`, { method: "POST", body, timeoutMs: limits.timeoutMs }), what);
    const videos = page.videos === undefined ? [] : arrayOf(page.videos, `${what}: data.videos`);
    return { posts: videos.map((v, i) => postOf(v, `${what}: data.videos[${i}]`)), next: nextCursor(page, what) };
  });
}
