import { accessTokenOf, bearerFetch } from "../../providers/bearer";
import { errorFromResponse, readJson } from "../../providers/http";
import type { ProviderError, AccountContext } from "../../providers/types";

/**
 * Calls to LinkedIn's versioned REST API (api.linkedin.com/rest, plus /v2/userinfo) with the member's access
 * token, the `LinkedIn-Version` header naming the monthly API version Herald was written against, and
 * `X-Restli-Protocol-Version: 2.0.0`. LinkedIn's limits are daily and reset at midnight UTC; a 429 without a
 * Retry-After is retried then.
 */

export const LINKEDIN_API_BASE = "https://api.linkedin.com";
/** The Posts API version (YYYYMM) Herald's calls follow; LinkedIn keeps each version for at least a year. */
export const LINKEDIN_VERSION = "202610";

export const linkedinBase = (account: Pick<AccountContext, "instanceUrl">) => (account.instanceUrl ?? LINKEDIN_API_BASE).replace(/\/+$/, "");

export type LinkedInInit = { method?: string; body?: unknown; mutating?: boolean; timeoutMs?: number };

/** The next midnight UTC after `now`: when LinkedIn's daily limits reset. */
export function nextMidnightUtc(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** The headers of every LinkedIn REST call besides the bearer token. */
const LINKEDIN_HEADERS = { "linkedin-version": LINKEDIN_VERSION, "x-restli-protocol-version": "2.0.0" };

/** Headers for a call made outside linkedinCall (an image upload to the URL LinkedIn gave). */
export function linkedinHeaders(token: string): Record<string, string> {
  return { accept: "application/json", authorization: `Bearer ${token}`, "user-agent": "Herald/1", ...LINKEDIN_HEADERS };
}

export const tokenOf = (account: AccountContext) => accessTokenOf(account, "LinkedIn");

/** A non-2xx answer as a ProviderError (LinkedIn's `{message, serviceErrorCode, status}` kept for the message). */
export async function linkedinError(res: Response, mutating?: boolean): Promise<ProviderError> {
  const body = await readJson<{ message?: unknown }>(res);
  const err = errorFromResponse(res, { providerName: "LinkedIn", message: typeof body?.message === "string" ? body.message : undefined, mutating });
  if (res.status === 429) err.info.retryAt ??= nextMidnightUtc();
  return err;
}

/** One authenticated call; answers the Response (the created post's id is in its `x-restli-id` header). */
export async function linkedinCall(account: AccountContext, path: string, init: LinkedInInit = {}): Promise<Response> {
  return bearerFetch(account, `${linkedinBase(account)}${path}`, { ...init, headers: LINKEDIN_HEADERS }, "LinkedIn", (res) =>
    linkedinError(res, init.mutating),
  );
}

export async function linkedinApi<T>(account: AccountContext, path: string, init: LinkedInInit = {}): Promise<T> {
  return (await readJson<T>(await linkedinCall(account, path, init))) as T;
}
