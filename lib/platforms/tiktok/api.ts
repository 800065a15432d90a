import { bearerFetch } from "../../providers/bearer";
import { readTextCapped } from "../../net/read-capped";
import { errorFromResponse, MAX_PROVIDER_ANSWER_BYTES, readJson } from "../../providers/http";
import { ProviderError, type AccountContext } from "../../providers/types";

/**
 * Calls to TikTok's Open API v2 (open.tiktokapis.com) with the account's access token. Every answer carries
 * `error: {code, message, log_id}`, `code: "ok"` on success; `access_token_invalid` (401) is a credentials
 * problem, `rate_limit_exceeded` (429) a rate limit (TikTok documents no reset header: Retry-After when sent,
 * else the end of the one-minute window).
 */

export const TIKTOK_API_BASE = "https://open.tiktokapis.com";
/** TikTok's documented rate-limit window: one minute, sliding. */
export const TIKTOK_RATE_WINDOW_SECONDS = 60;

export const tiktokBase = (account: Pick<AccountContext, "instanceUrl">) => (account.instanceUrl ?? TIKTOK_API_BASE).replace(/\/+$/, "");

interface TikTokAnswer<T> {
  data?: T;
  error?: { code?: unknown; message?: unknown };
}

/** A TikTok answer whose `error.code` is not `ok` (or whose status is not 2xx) as a ProviderError. */
export function tiktokError(res: Response, body: unknown): ProviderError {
  const error = body !== null && typeof body === "object" && "error" in body ? body.error : undefined;
  const field = (name: "code" | "message") => {
    const v: unknown = error !== null && typeof error === "object" ? Reflect.get(error, name) : undefined;
    return typeof v === "string" ? v : undefined;
  };
  const code = field("code");
  const message = field("message");
  if (res.status === 401 || code === "access_token_invalid" || code === "scope_not_authorized")
    return new ProviderError(`TikTok refused the access token${message ? `: ${message.slice(0, 300)}` : "."}`, {
      kind: "authentication",
      code: code ?? "http_401",
      httpStatus: 401,
      retryable: false,
    });
  if (res.status === 429 || code === "rate_limit_exceeded") {
    const base = errorFromResponse(res, { providerName: "TikTok", message });
    return new ProviderError(base.message, {
      kind: "rate_limited",
      code: code ?? "http_429",
      httpStatus: res.status,
      retryable: true,
      // No reset time is documented; limits are counted over a one-minute sliding window ("Rate Limits"), so a
      // minute after the refusal the window no longer holds the requests that filled it.
      retryAt: base.info.retryAt ?? new Date(Date.now() + TIKTOK_RATE_WINDOW_SECONDS * 1000),
    });
  }
  if (res.ok)
    return new ProviderError(`TikTok refused the request: ${code}${message ? ` (${message.slice(0, 300)})` : ""}`, {
      kind: "validation",
      code: code ?? "tiktok_error",
      httpStatus: res.status,
      retryable: false,
    });
  return errorFromResponse(res, { providerName: "TikTok", message, code });
}

/**
 * One authenticated call answered 2xx (anything else a ProviderError); the caller reads the body (analytics read
 * it through lib/providers/answer.ts and checks `error.code` itself). `timeoutMs` bounds the wait for an answer.
 */
export async function tiktokResponse(
  account: AccountContext,
  path: string,
  init: { method?: "GET" | "POST"; body?: unknown; timeoutMs?: number } = {},
): Promise<Response> {
  return bearerFetch(
    account,
    `${tiktokBase(account)}${path}`,
    { ...init, headers: init.body !== undefined ? { "content-type": "application/json; charset=UTF-8" } : undefined },
    "TikTok",
    async (res) => tiktokError(res, await readJson(res)),
  );
}

/**
 * A TikTok answer's JSON. TikTok documents `publicaly_available_post_id` as int64 numbers, which JSON.parse would
 * round past 2^53 (a post id has 19 digits), so that list is read as the digits sent. Null when it is not JSON.
 */
export function parseTikTokAnswer<T>(text: string): T | null {
  const exact = text.replace(
    /("publicaly_available_post_id"\s*:\s*\[)([-\d\s,]*)\]/g,
    (_m, head: string, list: string) =>
      `${head}${list
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean)
        .map((n) => `"${n}"`)
        .join(",")}]`,
  );
  try {
    return JSON.parse(exact) as T;
  } catch {
    return null;
  }
}

/** One authenticated JSON call; answers `data`. */
export async function tiktokApi<T>(account: AccountContext, path: string, init: { method?: "GET" | "POST"; body?: unknown } = {}): Promise<T> {
  const res = await tiktokResponse(account, path, init);
  const text = await readTextCapped(res, MAX_PROVIDER_ANSWER_BYTES);
  const body = text === null ? null : parseTikTokAnswer<TikTokAnswer<T>>(text);
  if (body?.error?.code !== undefined && body.error.code !== "ok") throw tiktokError(res, body);
  if (!body?.data) throw new ProviderError("TikTok answered without data.", { kind: "unknown", code: "malformed_answer", retryable: true });
  return body.data;
}
