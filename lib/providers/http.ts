import { checkOutboundUrl } from "../net/outbound-url";
import { readTextCapped } from "../net/read-capped";
import { checkResolvedHost, defaultResolver, type Resolver } from "../net/resolve";
import { ProviderError, type ProviderErrorKind } from "./types";

/**
 * fetch for adapters: the outbound URL policy on every call, no redirects followed, a timeout, and every
 * failure turned into a classified ProviderError. fetch only, so it runs in Workers as well as Node.
 */

export const DEFAULT_TIMEOUT_MS = 15_000;

export interface ProviderRequest extends RequestInit {
  allowPrivateUrls: boolean;
  timeoutMs?: number;
  /**
   * True when the request changes something at the provider (a post). A timeout or a connection cut
   * after sending then leaves the outcome unknown, which the pipeline reconciles instead of repeating.
   */
  mutating?: boolean;
  /** How names are resolved for the send-time check (lib/net/resolve.ts); DNS over HTTPS by default. */
  resolve?: Resolver;
}

/** Connection failures that happen before a request is sent: safe to repeat, nothing was posted. */
const BEFORE_SENDING = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown; name?: unknown } })?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof (err as { code?: unknown })?.code === "string") return (err as { code: string }).code;
  return undefined;
}

export async function providerFetch(url: string, init: ProviderRequest): Promise<Response> {
  const verdict = checkOutboundUrl(url, init.allowPrivateUrls);
  if (!verdict.ok) {
    throw new ProviderError(`The provider URL ${verdict.reason}.`, { kind: "configuration", code: "url_refused", retryable: false });
  }
  if (!init.allowPrivateUrls) {
    // At send time, every address the name has now must be public (CONTRACT.md §6).
    const host = await checkResolvedHost(verdict.url!.hostname, init.resolve ?? defaultResolver());
    if (!host.ok && host.code === "url_refused")
      throw new ProviderError(`The provider URL ${host.reason}.`, { kind: "configuration", code: "url_refused", retryable: false });
    // Nothing was sent: safe to try again later (a name that does not exist yet may be fixed by its owner).
    if (!host.ok) throw new ProviderError(`The provider URL ${host.reason}.`, { kind: "network", code: host.code, retryable: true });
  }
  const { allowPrivateUrls: _a, timeoutMs, mutating, resolve: _r, ...rest } = init;
  try {
    return await fetch(verdict.url!, { ...rest, redirect: "manual", signal: AbortSignal.timeout(timeoutMs ?? DEFAULT_TIMEOUT_MS) });
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      throw new ProviderError(`No answer from the provider within ${Math.round((timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s.`, {
        kind: "network",
        code: "timeout",
        retryable: true,
        outcomeUnknown: mutating === true,
      });
    }
    const code = causeCode(err) ?? "network_error";
    const unsent = BEFORE_SENDING.has(code);
    throw new ProviderError(`Could not reach the provider (${code}).`, {
      kind: "network",
      code,
      retryable: true,
      outcomeUnknown: mutating === true && !unsent,
    });
  }
}

/** Retry-After as seconds or an HTTP date; RateLimit-Reset / X-RateLimit-Reset as epoch seconds or an ISO date. */
export function retryAtFrom(headers: Headers, now = Date.now()): Date | undefined {
  const after = headers.get("retry-after");
  if (after) {
    if (/^\d+$/.test(after.trim())) return new Date(now + Number(after.trim()) * 1000);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return new Date(date);
  }
  const reset = headers.get("ratelimit-reset") ?? headers.get("x-ratelimit-reset");
  if (reset) {
    const trimmed = reset.trim();
    if (/^\d+$/.test(trimmed)) {
      const n = Number(trimmed);
      // Epoch seconds (Bluesky) versus seconds-from-now (the IETF draft): epochs are large.
      return new Date(n > 1_000_000_000 ? n * 1000 : now + n * 1000);
    }
    const date = Date.parse(trimmed);
    if (!Number.isNaN(date)) return new Date(date);
  }
  return undefined;
}

/** The status → kind/retryable mapping every provider shares. */
export function classifyStatus(status: number): { kind: ProviderErrorKind; retryable: boolean } {
  if (status === 401 || status === 403) return { kind: "authentication", retryable: false };
  if (status === 408) return { kind: "unavailable", retryable: true };
  if (status === 429) return { kind: "rate_limited", retryable: true };
  if (status >= 500) return { kind: "unavailable", retryable: true };
  if (status >= 300 && status < 400) return { kind: "configuration", retryable: false };
  return { kind: "validation", retryable: false };
}

/**
 * A ProviderError for a non-2xx answer. `code` is the provider's own error name when it gives one
 * (XRPC `error`, Mastodon `error` text is kept for the message only), else `http_<status>`.
 */
export function errorFromResponse(res: Response, opts: { providerName: string; code?: string; message?: string; mutating?: boolean }): ProviderError {
  const { kind, retryable } = classifyStatus(res.status);
  const base = opts.message ? `: ${opts.message.slice(0, 300)}` : "";
  const why =
    res.status >= 300 && res.status < 400
      ? `${opts.providerName} answered with a redirect (${res.status}), which Herald does not follow; use the final URL.`
      : `${opts.providerName} answered ${res.status}${base}`;
  return new ProviderError(why, {
    kind,
    code: opts.code ?? `http_${res.status}`,
    httpStatus: res.status,
    retryable,
    retryAt: retryable ? retryAtFrom(res.headers) : undefined,
    // A gateway timeout means the provider may have done it behind the gateway.
    outcomeUnknown: opts.mutating === true && res.status === 504 ? true : undefined,
  });
}

/** No provider API answer we read is near this; a larger one is treated as unreadable, not buffered. */
export const MAX_PROVIDER_ANSWER_BYTES = 2 * 1024 * 1024;

/** JSON of a response, or null when it is not JSON or larger than MAX_PROVIDER_ANSWER_BYTES (never throws). */
export async function readJson<T = unknown>(res: Response): Promise<T | null> {
  const text = await readTextCapped(res, MAX_PROVIDER_ANSWER_BYTES);
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
