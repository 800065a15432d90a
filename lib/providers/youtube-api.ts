import { errorFromResponse, providerFetch, readJson } from "./http";
import { ProviderError, type AccountContext } from "./types";

/**
 * Calls to the YouTube Data API v3 with the account's Google OAuth access token. Google's errors come as
 * `{error: {code, message, errors: [{reason}]}}`; a spent quota is 403 `quotaExceeded` (a rate limit that
 * resets at midnight Pacific time, not a credentials problem), `rateLimitExceeded`/429 a short one.
 */

export const YOUTUBE_API_BASE = "https://www.googleapis.com";

export const youtubeBase = (account: Pick<AccountContext, "instanceUrl">) => (account.instanceUrl ?? YOUTUBE_API_BASE).replace(/\/+$/, "");

interface GoogleError {
  error?: { message?: unknown; errors?: { reason?: unknown }[] };
}

const RATE_REASONS = new Set(["quotaExceeded", "rateLimitExceeded", "userRateLimitExceeded", "uploadLimitExceeded"]);

export const bearer = (account: AccountContext) => {
  const token = account.credentials.access_token;
  if (!token) throw new ProviderError("The YouTube account has no access token.", { kind: "configuration", code: "missing_credentials", retryable: false });
  return `Bearer ${token}`;
};

/** A non-2xx Google answer as a ProviderError. */
export async function youtubeError(res: Response): Promise<ProviderError> {
  const body = await readJson<GoogleError>(res);
  const message = typeof body?.error?.message === "string" ? body.error.message : undefined;
  const reason = typeof body?.error?.errors?.[0]?.reason === "string" ? body.error.errors[0].reason : undefined;
  const err = errorFromResponse(res, { providerName: "YouTube", message, code: reason });
  if (reason && RATE_REASONS.has(reason))
    return new ProviderError(err.message, { kind: "rate_limited", code: reason, httpStatus: res.status, retryable: true, retryAt: err.info.retryAt });
  return err;
}

/** One authenticated JSON call to a path under the API base. */
export async function youtubeApi(
  account: AccountContext,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Response> {
  const res = await providerFetch(`${youtubeBase(account)}${path}`, {
    method: init.method ?? "GET",
    headers: {
      accept: "application/json",
      authorization: bearer(account),
      ...(init.body !== undefined ? { "content-type": "application/json; charset=UTF-8" } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    allowPrivateUrls: account.allowPrivateUrls,
    timeoutMs: init.timeoutMs,
  });
  if (!res.ok) throw await youtubeError(res);
  return res;
}
