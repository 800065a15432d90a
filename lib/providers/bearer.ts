import { providerFetch } from "./http";
import { ProviderError, type AccountContext } from "./types";

/**
 * One call to a platform's API with the account's access token, as every OAuth and bearer-token platform takes
 * it: the token in the Authorization header only (never in a URL), JSON accepted, the body JSON, multipart or
 * form-encoded. Platforms differ in how they answer a failure, so each passes `failure`, which turns its non-2xx
 * Response into a ProviderError.
 */

export interface BearerCall {
  method?: string;
  /** A JSON body. */
  body?: unknown;
  /** A multipart body. */
  form?: FormData;
  /** Form parameters: the form-encoded body of a POST, the query of any other method. */
  params?: Record<string, string>;
  headers?: Record<string, string>;
  /** The call can take effect on the platform (see providerFetch): its lost answer is an unknown outcome. */
  mutating?: boolean;
  timeoutMs?: number;
}

/** The account's access token, or a configuration error naming the platform. */
export function accessTokenOf(account: Pick<AccountContext, "credentials">, platformName: string): string {
  const token = account.credentials.access_token;
  if (!token)
    throw new ProviderError(`The ${platformName} account has no access token.`, { kind: "configuration", code: "missing_credentials", retryable: false });
  return token;
}

function bodyOf(method: string, call: BearerCall): { body?: BodyInit; contentType?: string } {
  if (call.form) return { body: call.form };
  if (call.body !== undefined) return { body: JSON.stringify(call.body), contentType: "application/json" };
  if (call.params && method === "POST") return { body: new URLSearchParams(call.params).toString(), contentType: "application/x-www-form-urlencoded" };
  return {};
}

/** The 2xx Response of the call; anything else is thrown as `failure` says. */
export async function bearerFetch(
  account: Pick<AccountContext, "credentials" | "allowPrivateUrls">,
  url: string,
  call: BearerCall,
  platformName: string,
  failure: (res: Response) => ProviderError | Promise<ProviderError>,
): Promise<Response> {
  const token = accessTokenOf(account, platformName);
  const method = call.method ?? "GET";
  const { body, contentType } = bodyOf(method, call);
  const query = call.params && method !== "POST" ? `${url.includes("?") ? "&" : "?"}${new URLSearchParams(call.params)}` : "";
  const res = await providerFetch(`${url}${query}`, {
    method,
    headers: {
      accept: "application/json",
      authorization: `Bearer ${token}`,
      "user-agent": "Herald/1",
      ...(contentType ? { "content-type": contentType } : {}),
      ...call.headers,
    },
    body,
    allowPrivateUrls: account.allowPrivateUrls,
    mutating: call.mutating,
    timeoutMs: call.timeoutMs,
  });
  if (!res.ok) throw await failure(res);
  return res;
}
