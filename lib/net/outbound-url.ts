import { isLocalHost } from "./addresses";

/**
 * Outbound URL policy (CONTRACT.md §6) for webhook endpoints and provider instance URLs.
 *
 * - http or https only, no user:password@ part, at most 2048 characters.
 * - Loopback, private, link-local and other non-public addresses, and names that are local by
 *   convention (localhost, *.localhost, *.local, *.internal, single-label names, …), are refused unless
 *   ALLOW_PRIVATE_URLS=true.
 * - Plain http is refused for public hosts unless ALLOW_PRIVATE_URLS=true: Herald sends bearer tokens,
 *   app passwords and signed content to these URLs, and they must not cross the Internet in the clear.
 *   With ALLOW_PRIVATE_URLS (local development, tests) http is allowed everywhere, since local peers
 *   rarely have certificates.
 * - Adapters never follow redirects (a public URL could otherwise redirect to a private one); a 3xx is
 *   reported as a configuration error.
 *
 * Limit, stated plainly: Workers have no DNS API, so a public name whose DNS record points at a private
 * address (or changes to one after the check: DNS rebinding) is not caught here. On Cloudflare Workers
 * outbound fetches leave from Cloudflare's edge, which cannot reach the operator's private network, so
 * what this check guards in production is the literal-address and local-name cases above; a Node or
 * self-hosted deployment that can reach private networks should put an egress proxy or firewall in front.
 */

export interface UrlVerdict {
  ok: boolean;
  /** The normalised URL when ok. */
  url?: URL;
  /** Why it was refused, for a 422 detail. */
  reason?: string;
}

export const MAX_URL_LENGTH = 2048;

export function checkOutboundUrl(raw: string, allowPrivate: boolean): UrlVerdict {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "is not an absolute URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "must be an http or https URL" };
  if (url.username || url.password) return { ok: false, reason: "must not carry a user name or password" };
  if (!allowPrivate) {
    if (isLocalHost(url.hostname)) {
      return { ok: false, reason: "points to a loopback, private or local address, which this server does not contact (ALLOW_PRIVATE_URLS is off)" };
    }
    if (url.protocol !== "https:") return { ok: false, reason: "must use https" };
  }
  return { ok: true, url };
}

/**
 * A provider instance's base URL: scheme, host and port only (a path, query or fragment is dropped),
 * lower-case, without a trailing slash. `mastodon.social` without a scheme means https.
 */
export function normaliseInstanceUrl(raw: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  try {
    return new URL(withScheme).origin;
  } catch {
    return raw;
  }
}
