import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, AuthUser } from "./context";
import { ApiError } from "./errors";

/** The shape of Cloudflare's Workers Rate Limiting binding (`[[ratelimits]]` in wrangler.toml). */
export interface RateLimiterBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1200;
const PERIOD_MS = 60_000;
/** Windows of at most this many tokens are kept; the oldest window is dropped first. */
const MAX_KEYS = 10_000;

/**
 * Fixed one-minute windows counted in this isolate. Where a RATE_LIMITER binding is configured, Cloudflare
 * counts per location instead; without one (Node, `npm start` without the binding) this counter is the limit.
 */
const windows = new Map<string, { start: number; count: number }>();

function countInIsolate(key: string, limit: number, now: number): { ok: boolean; retryAfter: number } {
  const start = now - (now % PERIOD_MS);
  let window = windows.get(key);
  if (!window || window.start !== start) {
    windows.delete(key);
    if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value!);
    window = { start, count: 0 };
    windows.set(key, window);
  }
  window.count++;
  return { ok: window.count <= limit, retryAfter: Math.max(1, Math.ceil((start + PERIOD_MS - now) / 1000)) };
}

/**
 * What a request counts against: its token, its browser session, or (for the passkey sign-in, which anyone
 * may call) the client's address as Cloudflare reports it. Other unauthenticated requests are not counted.
 */
function limitKey(user: AuthUser | undefined, path: string, clientIp: string | undefined): string | undefined {
  if (user?.tokenId) return `token:${user.tokenId}`;
  if (user?.sessionId) return `session:${user.sessionId}`;
  if (clientIp && path.startsWith("/auth/sessions/passkey/")) return `address:${clientIp}`;
  return undefined;
}

/**
 * CONTRACT §2: per token, at most RATE_LIMIT_PER_MINUTE requests a minute; beyond that 429 `rate-limited`
 * with Retry-After (seconds to the next window). Runs after authentication, so unauthenticated requests are
 * answered 401 before they count.
 */
export async function enforceRateLimit(c: Context<AppEnv>): Promise<void> {
  const key = limitKey(c.get("user"), c.req.path, c.req.header("cf-connecting-ip"));
  if (!key) return;
  const binding = (c.env as { RATE_LIMITER?: RateLimiterBinding } | undefined)?.RATE_LIMITER;
  const limit = Number(c.env?.RATE_LIMIT_PER_MINUTE) || DEFAULT_RATE_LIMIT_PER_MINUTE;
  const now = Date.now();
  const verdict = binding
    ? { ok: (await binding.limit({ key })).success, retryAfter: Math.max(1, Math.ceil((PERIOD_MS - (now % PERIOD_MS)) / 1000)) }
    : countInIsolate(key, limit, now);
  if (!verdict.ok) {
    throw new ApiError("rate-limited", {
      detail: `This ${key.split(":")[0]} made more than its ${binding ? "" : `${limit} `}requests this minute; try again in ${verdict.retryAfter} s.`,
      headers: { "retry-after": String(verdict.retryAfter) },
    });
  }
}

/** The middleware form, after authentication (a guarded read counts once its caller is known: lib/http/auth.ts). */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get("pendingCaller")) await enforceRateLimit(c);
  return next();
};
