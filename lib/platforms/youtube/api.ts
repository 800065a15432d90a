import { accessTokenOf, bearerFetch } from "../../providers/bearer";
import { errorFromResponse, readJson } from "../../providers/http";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Calls to the YouTube Data API v3 with the account's Google OAuth access token. Google's errors come as
 * `{error: {code, message, errors: [{reason}]}}`; a spent quota is 403 `quotaExceeded` (a rate limit that
 * resets at midnight Pacific time, not a credentials problem: retried then, not on the delivery's short backoff),
 * `rateLimitExceeded`/429 a short one (retried at its Retry-After when it gives one).
 */

export const YOUTUBE_API_BASE = "https://www.googleapis.com";

export const youtubeBase = (account: Pick<AccountContext, "instanceUrl">) => (account.instanceUrl ?? YOUTUBE_API_BASE).replace(/\/+$/, "");

interface GoogleError {
  error?: { message?: unknown; errors?: { reason?: unknown }[] };
}

const RATE_REASONS = new Set(["quotaExceeded", "rateLimitExceeded", "userRateLimitExceeded", "uploadLimitExceeded"]);

/** The Authorization header of a call made outside youtubeApi (an upload session's chunks). */
export const bearer = (account: AccountContext) => `Bearer ${accessTokenOf(account, "YouTube")}`;

const PACIFIC = new Intl.DateTimeFormat("en-US", { timeZone: "America/Los_Angeles", hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h23" });

/** Seconds since midnight on Los Angeles' wall clock at `at`. */
function pacificSecondOfDay(at: Date): number {
  const parts = Object.fromEntries(PACIFIC.formatToParts(at).map((p) => [p.type, p.value]));
  return Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second);
}

/** The next midnight Pacific time after `now`, when YouTube's daily quota resets (a DST night's hour accounted for). */
export function nextPacificMidnight(now: Date): Date {
  const ms = Math.floor(now.getTime() / 1000) * 1000;
  let at = ms + (86_400 - pacificSecondOfDay(new Date(ms))) * 1000;
  const wall = pacificSecondOfDay(new Date(at));
  // That night the clocks moved: 23:00 (an hour short) or 01:00 (an hour long) instead of midnight.
  if (wall >= 12 * 3600) at += (86_400 - wall) * 1000;
  else at -= wall * 1000;
  return new Date(at);
}

/** A non-2xx Google answer as a ProviderError. */
export async function youtubeError(res: Response, now = new Date()): Promise<ProviderError> {
  const body = await readJson<GoogleError>(res);
  const message = typeof body?.error?.message === "string" ? body.error.message : undefined;
  const reason = typeof body?.error?.errors?.[0]?.reason === "string" ? body.error.errors[0].reason : undefined;
  const err = errorFromResponse(res, { providerName: "YouTube", message, code: reason });
  if (reason && RATE_REASONS.has(reason)) {
    const retryAt = err.info.retryAt ?? (reason === "quotaExceeded" ? nextPacificMidnight(now) : undefined);
    return new ProviderError(err.message, { kind: "rate_limited", code: reason, httpStatus: res.status, retryable: true, retryAt });
  }
  return err;
}

/** One authenticated JSON call to a path under the API base. */
export async function youtubeApi(
  account: AccountContext,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Response> {
  const json: Record<string, string> = init.body !== undefined ? { "content-type": "application/json; charset=UTF-8" } : {};
  return bearerFetch(account, `${youtubeBase(account)}${path}`, { ...init, headers: { ...json, ...init.headers } }, "YouTube", (res) => youtubeError(res));
}
