import type { Context } from "hono";
import type { AppEnv } from "./context";

/** IPv6 clients are counted by their /64, which one subscriber usually holds whole; IPv4 by the address. */
function addressKey(address: string): string {
  // IPv4, or IPv4 written as IPv6 (::ffff:192.0.2.1): the IPv4 address.
  if (address.includes(".")) return address.slice(address.lastIndexOf(":") + 1);
  const [head, tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...left, ...Array.from({ length: Math.max(0, 8 - left.length - right.length) }, () => "0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * The client's address, for counting requests that carry no person. On Cloudflare, `cf-connecting-ip` is set by
 * Cloudflare's edge (a value the client sent is replaced), and the gateway passes it on to the group Workers
 * untouched. Under `npm start` the launcher's relay on PORT sets it to the socket's peer address the same way
 * (local/services/client-address-relay.ts), since Miniflare alone would keep one the client sent. Anything that is
 * not an IP address counts as one unknown client.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const raw = c.req.header("cf-connecting-ip")?.trim().toLowerCase();
  return raw && /^[0-9a-f:.]{2,45}$/.test(raw) && /[.:]/.test(raw) ? addressKey(raw) : "unknown";
}
