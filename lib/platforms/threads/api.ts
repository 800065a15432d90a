import { type BearerCall, bearerFetch } from "../../providers/bearer";
import { errorFromResponse, readJson } from "../../providers/http";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Calls to the Threads API (graph.threads.net, v1.0) with the account's access token in the Authorization
 * header, never in a URL. Graph errors come as `{error: {message, type, code}}`: code 190 is an invalid or
 * expired token (answered 400 or 401), codes 4, 17, 32 and 613 are rate limits (answered 400, 403 or 429), with
 * the wait in `Retry-After` or as `estimated_time_to_regain_access` (minutes) in the usage headers.
 */

export const THREADS_API_BASE = "https://graph.threads.net";
export const THREADS_API_VERSION = "v1.0";

export const threadsBase = (account: Pick<AccountContext, "instanceUrl">) =>
  `${(account.instanceUrl ?? THREADS_API_BASE).replace(/\/+$/, "")}/${THREADS_API_VERSION}`;

export type ThreadsInit = { method?: "GET" | "POST"; params?: Record<string, string>; mutating?: boolean; timeoutMs?: number };

interface GraphError {
  error?: { message?: unknown; type?: unknown; code?: unknown };
}

const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);

/** The wait the usage headers give (`estimated_time_to_regain_access`, minutes), as a time. */
export function regainAccessAt(headers: Headers, now = Date.now()): Date | undefined {
  let minutes = 0;
  for (const name of ["x-business-use-case-usage", "x-app-usage"]) {
    for (const m of (headers.get(name) ?? "").matchAll(/"estimated_time_to_regain_access"\s*:\s*(\d+)/g)) minutes = Math.max(minutes, Number(m[1]));
  }
  return minutes > 0 ? new Date(now + minutes * 60_000) : undefined;
}

/** A Graph error answer as a ProviderError: token errors are authentication, rate-limit codes rate_limited. */
export function graphError(res: Response, body: GraphError | null, mutating?: boolean, providerName = "Threads"): ProviderError {
  const code = typeof body?.error?.code === "number" ? body.error.code : null;
  const message = typeof body?.error?.message === "string" ? body.error.message.slice(0, 300) : undefined;
  if (code === 190 || res.status === 401)
    return new ProviderError(`${providerName} refused the access token${message ? `: ${message}` : "."}`, {
      kind: "authentication",
      code: "invalid_token",
      httpStatus: 401,
      retryable: false,
    });
  if (res.status === 429 || (code !== null && RATE_LIMIT_CODES.has(code))) {
    const base = errorFromResponse(res, { providerName, message });
    return new ProviderError(base.message, {
      kind: "rate_limited",
      code: code !== null ? `graph_${code}` : "http_429",
      httpStatus: res.status,
      retryable: true,
      retryAt: base.info.retryAt ?? regainAccessAt(res.headers),
    });
  }
  return errorFromResponse(res, { providerName, message, code: code !== null ? `graph_${code}` : undefined, mutating });
}

/**
 * A Graph API call (Threads', or Meta's for Facebook and Instagram): the bearer call with Graph's errors. POST
 * parameters go form-encoded in the body, GET ones in the query.
 */
export function graphFetch(account: AccountContext, url: string, init: BearerCall, providerName = "Threads"): Promise<Response> {
  return bearerFetch(account, url, init, providerName, async (r) => graphError(r, await readJson<GraphError>(r), init.mutating, providerName));
}

/** One authenticated Threads call; its JSON answer. */
export async function threadsApi<T>(account: AccountContext, path: string, init: ThreadsInit = {}): Promise<T> {
  return (await readJson<T>(await graphFetch(account, `${threadsBase(account)}${path}`, init))) as T;
}
