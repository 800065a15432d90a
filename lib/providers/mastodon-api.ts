import { normaliseInstanceUrl } from "../net/outbound-url";
import { errorFromResponse, providerFetch, readJson } from "./http";
import { ProviderError, type AccountContext } from "./types";

/** Calls to a Mastodon-API server with the account's bearer token. */

export const baseUrl = (account: Pick<AccountContext, "instanceUrl">) => {
  if (!account.instanceUrl)
    throw new ProviderError("The Mastodon account has no instance URL.", { kind: "configuration", code: "missing_instance_url", retryable: false });
  return normaliseInstanceUrl(account.instanceUrl);
};

type ApiInit = { method?: string; body?: unknown; form?: FormData; headers?: Record<string, string>; mutating?: boolean; timeoutMs?: number };

/** One authenticated API call; any non-2xx becomes a ProviderError carrying Mastodon's `error` text. */
export async function mastodonApi<T>(account: AccountContext, path: string, init: ApiInit = {}): Promise<T> {
  return (await readJson<T>(await mastodonResponse(account, path, init))) as T;
}

/** The same call, answering the 2xx Response itself (for callers that read headers, e.g. Link paging). */
export async function mastodonResponse(account: AccountContext, path: string, init: ApiInit = {}): Promise<Response> {
  const token = account.credentials.access_token;
  if (!token) throw new ProviderError("The Mastodon account has no access token.", { kind: "configuration", code: "missing_credentials", retryable: false });
  const res = await providerFetch(`${baseUrl(account)}${path}`, {
    method: init.method ?? "GET",
    headers: {
      accept: "application/json",
      authorization: `Bearer ${token}`,
      "user-agent": "Herald/1",
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
    body: init.form ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
    allowPrivateUrls: account.allowPrivateUrls,
    mutating: init.mutating,
    timeoutMs: init.timeoutMs,
  });
  if (!res.ok) {
    const error = await readJson<{ error?: unknown }>(res);
    throw errorFromResponse(res, {
      providerName: "The Mastodon server",
      message: typeof error?.error === "string" ? error.error : undefined,
      mutating: init.mutating,
    });
  }
  return res;
}
