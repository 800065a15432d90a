import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { clientAddress } from "./client-address";
import { ApiError } from "./errors";

/** The shape of Cloudflare's Workers Rate Limiting binding (`ratelimits` in wrangler.toml). */
export interface RateLimiterBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * Two budgets: a signed-in person's requests (all their tokens and sessions together), and a client address's
 * requests that carry no person: public operations, no credential, or one that failed. Each is a binding of
 * every group Worker (local/wrangler-sections.ts), the same namespace in all, so a budget is one across groups.
 */
export type Budget = "user" | "address";
export const RATE_LIMIT_BINDINGS: Record<Budget, string> = { user: "RATE_LIMITER", address: "RATE_LIMITER_ADDRESS" };

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1200;
const PERIOD_MS = 60_000;
/** Windows of at most this many keys are kept; the oldest window is dropped first. */
const MAX_KEYS = 10_000;

/**
 * Fixed one-minute windows counted in this isolate, with RATE_LIMIT_PER_MINUTE (default 1200) for both budgets: the
 * limit where no binding is configured (Node tests). Where the bindings are (Cloudflare counts per location;
 * Miniflare under `npm start`), their limits apply, and RATE_LIMIT_PER_MINUTE too when it is set.
 */
const windows = new Map<string, { start: number; count: number }>();
/** Addresses over their budget, until their window ends: their credentials are not even looked up meanwhile. */
const blocked = new Map<string, number>();

function countInIsolate(key: string, limit: number, now: number): boolean {
  const start = now - (now % PERIOD_MS);
  let window = windows.get(key);
  if (!window || window.start !== start) {
    windows.delete(key);
    if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value!);
    window = { start, count: 0 };
    windows.set(key, window);
  }
  window.count++;
  return window.count <= limit;
}

const secondsToNextWindow = (now: number) => Math.max(1, Math.ceil((PERIOD_MS - (now % PERIOD_MS)) / 1000));

async function spend(c: Context<AppEnv>, budget: Budget, key: string): Promise<boolean> {
  const binding = (c.env as unknown as Record<string, RateLimiterBinding | undefined> | undefined)?.[RATE_LIMIT_BINDINGS[budget]];
  const configured = Number(c.env?.RATE_LIMIT_PER_MINUTE) || undefined;
  if (!binding) return countInIsolate(key, configured ?? DEFAULT_RATE_LIMIT_PER_MINUTE, Date.now());
  const ok = (await binding.limit({ key })).success;
  // A RATE_LIMIT_PER_MINUTE set by the operator still holds beside the binding's own limit, counted in this isolate.
  return configured === undefined ? ok : countInIsolate(key, configured, Date.now()) && ok;
}

function rateLimited(who: string): ApiError {
  const retryAfter = secondsToNextWindow(Date.now());
  return new ApiError("rate-limited", {
    detail: `${who} made more requests this minute than allowed; try again in ${retryAfter} s.`,
    headers: { "retry-after": String(retryAfter) },
  });
}

/** Count a request that carries no person against its address; 429 once the address is over its budget. */
export async function enforceAddressLimit(c: Context<AppEnv>): Promise<void> {
  const address = clientAddress(c);
  if (await spend(c, "address", `address:${address}`)) return;
  if (blocked.size >= MAX_KEYS) blocked.delete(blocked.keys().next().value!);
  blocked.set(address, Date.now() - (Date.now() % PERIOD_MS) + PERIOD_MS);
  throw rateLimited("This address");
}

/** Whether this address went over its budget in this window (in this isolate): 429 before any lookup. */
export function addressBlocked(c: Context<AppEnv>): ApiError | undefined {
  const address = clientAddress(c);
  const until = blocked.get(address);
  if (until === undefined) return undefined;
  if (until > Date.now()) return rateLimited("This address");
  blocked.delete(address);
  return undefined;
}

/**
 * CONTRACT §2: a signed-in person's requests count against that person (however many tokens and sessions they
 * hold), others against their address; beyond the budget 429 `rate-limited` with Retry-After (seconds to the
 * next window).
 */
export async function enforceRateLimit(c: Context<AppEnv>): Promise<void> {
  const user = c.get("user");
  if (!user) return enforceAddressLimit(c);
  if (!(await spend(c, "user", `user:${user.id}`))) throw rateLimited("You");
}

/** The middleware form, after authentication (a guarded read counts once its caller is known: lib/http/auth.ts). */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get("pendingCaller")) await enforceRateLimit(c);
  return next();
};
