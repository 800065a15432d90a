import { isAddressLiteral, isPrivateAddress } from "./addresses";
import { readTextCapped } from "./read-capped";

/**
 * Checking a URL's name is not enough: a public name may resolve to a private address (or be changed to
 * one after the account was saved). So just before each request the name is resolved and every address
 * it has must be public. Workers have no DNS API: resolution is DNS over HTTPS (JSON), which works the
 * same in workerd and Node.
 *
 * Pinning the connection to the checked address is not possible with fetch (Workers cannot choose the
 * address fetch connects to while keeping the name for TLS), so a record changed between this check and
 * the connection (rebinding within seconds) is not caught. On Cloudflare, egress leaves from the edge,
 * which cannot reach the operator's network; a self-hosted deployment that can should also have an
 * egress firewall.
 */
export type Resolver = (name: string) => Promise<string[]>;

export class ResolveError extends Error {
  constructor(readonly code: "not_found" | "unavailable") {
    super(code === "not_found" ? "the name does not exist" : "the name could not be resolved");
  }
}

export const DEFAULT_DOH_ENDPOINT = "https://cloudflare-dns.com/dns-query";
const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_CACHE_TTL_S = 60;
const MAX_CACHE_ENTRIES = 1000;

interface DohAnswer {
  Status?: number;
  Answer?: { type?: number; data?: unknown; TTL?: number }[];
}

/** A resolver over DNS-over-HTTPS JSON (RFC 8484's JSON flavour as Cloudflare and Google serve it), cached briefly. */
export function dohResolver(endpoint = DEFAULT_DOH_ENDPOINT, opts: { timeoutMs?: number } = {}): Resolver {
  const cache = new Map<string, { addresses: string[]; until: number }>();
  async function query(name: string, type: "A" | "AAAA"): Promise<{ addresses: string[]; ttl: number; nxdomain: boolean }> {
    const url = `${endpoint}?name=${encodeURIComponent(name)}&type=${type}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: "application/dns-json" }, redirect: "manual", signal: AbortSignal.timeout(opts.timeoutMs ?? 5000) });
    } catch {
      throw new ResolveError("unavailable");
    }
    const text = await readTextCapped(res, MAX_ANSWER_BYTES);
    if (!res.ok || text === null) throw new ResolveError("unavailable");
    let body: DohAnswer;
    try {
      body = JSON.parse(text) as DohAnswer;
    } catch {
      throw new ResolveError("unavailable");
    }
    if (body.Status === 3) return { addresses: [], ttl: MAX_CACHE_TTL_S, nxdomain: true };
    if (body.Status !== 0) throw new ResolveError("unavailable");
    const wanted = type === "A" ? 1 : 28;
    const answers = (body.Answer ?? []).filter((a) => a.type === wanted && typeof a.data === "string");
    const ttl = Math.min(MAX_CACHE_TTL_S, ...answers.map((a) => (typeof a.TTL === "number" && a.TTL >= 0 ? a.TTL : 0)));
    return { addresses: answers.map((a) => a.data as string), ttl, nxdomain: false };
  }
  return async (name) => {
    const key = name.toLowerCase();
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return hit.addresses;
    const [a, aaaa] = await Promise.all([query(key, "A"), query(key, "AAAA")]);
    if (a.nxdomain && aaaa.nxdomain) throw new ResolveError("not_found");
    const addresses = [...a.addresses, ...aaaa.addresses];
    if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { addresses, until: Date.now() + Math.min(a.ttl, aaaa.ttl) * 1000 });
    return addresses;
  };
}

export type HostVerdict = { ok: true; addresses: string[] } | { ok: false; reason: string; code: "url_refused" | "not_found" | "dns_unavailable" };

/** Resolve `hostname` (URL.hostname) and require every address to be public; literals were judged already. */
export async function checkResolvedHost(hostname: string, resolve: Resolver): Promise<HostVerdict> {
  const name = hostname.replace(/\.+$/, "");
  if (isAddressLiteral(name)) return { ok: true, addresses: [] };
  let addresses: string[];
  try {
    addresses = await resolve(name);
  } catch (err) {
    if (err instanceof ResolveError && err.code === "not_found") return { ok: false, reason: "names a host that does not exist", code: "not_found" };
    return { ok: false, reason: "names a host that could not be resolved just now", code: "dns_unavailable" };
  }
  if (addresses.length === 0) return { ok: false, reason: "names a host without an address", code: "not_found" };
  if (addresses.some(isPrivateAddress)) {
    return {
      ok: false,
      reason: "names a host that resolves to a loopback, private or local address, which this server does not contact (ALLOW_PRIVATE_URLS is off)",
      code: "url_refused",
    };
  }
  return { ok: true, addresses };
}

let shared: Resolver | undefined;
/** The resolver providers use unless told otherwise (one per isolate, so its cache is shared). */
export const defaultResolver = (): Resolver => (shared ??= dohResolver());
