import { errorFromResponse, providerFetch, readJson } from "./http";
import { ProviderError, type AccountContext } from "./types";

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

export function linkedinHeaders(token: string, json: boolean): Record<string, string> {
  return {
    accept: "application/json",
    authorization: `Bearer ${token}`,
    "linkedin-version": LINKEDIN_VERSION,
    "x-restli-protocol-version": "2.0.0",
    "user-agent": "Herald/1",
    ...(json ? { "content-type": "application/json" } : {}),
  };
}

export function tokenOf(account: AccountContext): string {
  const token = account.credentials.access_token;
  if (!token) throw new ProviderError("The LinkedIn account has no access token.", { kind: "configuration", code: "missing_credentials", retryable: false });
  return token;
}

/** A non-2xx answer as a ProviderError (LinkedIn's `{message, serviceErrorCode, status}` kept for the message). */
export async function linkedinError(res: Response, mutating?: boolean): Promise<ProviderError> {
  const body = await readJson<{ message?: unknown }>(res);
  const err = errorFromResponse(res, { providerName: "LinkedIn", message: typeof body?.message === "string" ? body.message : undefined, mutating });
  if (res.status === 429) err.info.retryAt ??= nextMidnightUtc();
  return err;
}

/** One authenticated call; answers the Response (the created post's id is in its `x-restli-id` header). */
export async function linkedinCall(account: AccountContext, path: string, init: LinkedInInit = {}): Promise<Response> {
  const res = await providerFetch(`${linkedinBase(account)}${path}`, {
    method: init.method ?? "GET",
    headers: linkedinHeaders(tokenOf(account), init.body !== undefined),
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    allowPrivateUrls: account.allowPrivateUrls,
    mutating: init.mutating,
    timeoutMs: init.timeoutMs,
  });
  if (!res.ok) throw await linkedinError(res, init.mutating);
  return res;
}

export async function linkedinApi<T>(account: AccountContext, path: string, init: LinkedInInit = {}): Promise<T> {
  return (await readJson<T>(await linkedinCall(account, path, init))) as T;
}
