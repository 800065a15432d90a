import { normaliseInstanceUrl } from "../../net/outbound-url";
import { type BearerCall, bearerFetch } from "../../providers/bearer";
import { errorFromResponse, readJson } from "../../providers/http";
import { ProviderError, type AccountContext } from "../../providers/types";

/** Calls to a Mastodon-API server with the account's bearer token. */

export const baseUrl = (account: Pick<AccountContext, "instanceUrl">) => {
  if (!account.instanceUrl)
    throw new ProviderError("The Mastodon account has no instance URL.", { kind: "configuration", code: "missing_instance_url", retryable: false });
  return normaliseInstanceUrl(account.instanceUrl);
};

type ApiInit = Omit<BearerCall, "params">;

/** One authenticated API call; any non-2xx becomes a ProviderError carrying Mastodon's `error` text. */
export async function mastodonApi<T>(account: AccountContext, path: string, init: ApiInit = {}): Promise<T> {
  return (await readJson<T>(await mastodonResponse(account, path, init))) as T;
}

/** The same call, answering the 2xx Response itself (for callers that read headers, e.g. Link paging). */
export async function mastodonResponse(account: AccountContext, path: string, init: ApiInit = {}): Promise<Response> {
  return bearerFetch(account, `${baseUrl(account)}${path}`, init, "Mastodon", async (res) => {
    const error = await readJson<{ error?: unknown }>(res);
    return errorFromResponse(res, {
      providerName: "The Mastodon server",
      message: typeof error?.error === "string" ? error.error : undefined,
      mutating: init.mutating,
    });
  });
}
