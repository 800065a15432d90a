/**
 * Is a host (as the WHATWG URL parser leaves it: lower-case, IPv4 normalised to dotted decimal, IPv6
 * in brackets) loopback, private, link-local or otherwise not a public Internet destination?
 *
 * Workers have no DNS API, so only literal addresses and names that are local by convention can be
 * judged here; see outbound-url.ts for what that leaves open.
 */

const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "broadcasthost"]);
/** Suffixes that never name a public host (RFC 6761, 6762, 8375 and common private conventions). */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp", ".private", ".localdomain"];

/** IPv4 ranges that are not public destinations: [first octets as a number, prefix length]. */
const PRIVATE_V4: [string, number][] = [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host on most systems
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata services
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

export function parseIPv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

function inV4Range(address: number, base: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  const start = parseIPv4(base)!;
  return address >= start && address < start + size;
}

export const isPrivateIPv4 = (address: number) => PRIVATE_V4.some(([base, prefix]) => inV4Range(address, base, prefix));

/** Eight 16-bit groups of an IPv6 address (without brackets), or null when it is not one. */
export function parseIPv6(text: string): number[] | null {
  let host = text.toLowerCase();
  const zone = host.indexOf("%");
  if (zone >= 0) host = host.slice(0, zone);
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes two hex groups; the URL parser already does this.
  const lastColon = host.lastIndexOf(":");
  if (host.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(host.slice(lastColon + 1));
    if (v4 === null) return null;
    host = `${host.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = host.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const parsed = (list: string[]) => list.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const a = parsed(head);
  const b = parsed(rest);
  if ([...a, ...b].some(Number.isNaN)) return null;
  const missing = 8 - a.length - b.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...a, ...Array(halves.length === 2 ? missing : 0).fill(0), ...b];
}

export function isPrivateIPv6(g: number[]): boolean {
  const zeroPrefix = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroPrefix(8)) return true; // ::
  if (zeroPrefix(7) && g[7] === 1) return true; // ::1
  const v4 = g[6] * 65536 + g[7];
  if (zeroPrefix(5) && g[5] === 0xffff) return isPrivateIPv4(v4); // IPv4-mapped ::ffff:a.b.c.d
  if (zeroPrefix(6)) return isPrivateIPv4(v4); // deprecated IPv4-compatible ::a.b.c.d
  if (zeroPrefix(4) && g[4] === 0xffff && g[5] === 0) return isPrivateIPv4(v4); // IPv4-translated ::ffff:0:a.b.c.d
  // Addresses that carry or reach an IPv4 address through a translator or tunnel: a NAT64 gateway, a 6to4
  // or Teredo relay may sit inside the operator's network, and no public service needs to be named this way.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return true; // NAT64 64:ff9b::/96
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // local-use NAT64 64:ff9b:1::/48
  if (g[0] === 0x2002) return true; // 6to4 2002::/16
  if (g[0] === 0x2001 && g[1] === 0) return true; // Teredo 2001::/32
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return true; // discard-only 100::/64
  if (g[0] === 0x2001 && g[1] === 2 && g[2] === 0) return true; // benchmarking 2001:2::/48
  if (g[0] === 0x2001 && (g[1] & 0xffe0) === 0x20) return true; // ORCHIDv2 2001:20::/28
  if (g[0] === 0x2001 && (g[1] & 0xfff0) === 0x10) return true; // ORCHID 2001:10::/28
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  return false;
}

/** Whether `host` (URL.hostname) names a loopback, private or otherwise non-public destination. */
export function isLocalHost(hostname: string): boolean {
  // "localhost." and "localhost.." are localhost (a final dot only says "fully qualified"); a name with
  // an empty label anywhere else ("a..b") is not a name any resolver will treat as public.
  let host = hostname.toLowerCase().replace(/\.+$/, "");
  if (host.startsWith(".") || host.includes("..")) return true;
  if (host !== hostname.toLowerCase() && !host.startsWith("[")) {
    // The URL parser leaves "0x7f.1.." alone (not an IPv4 form with the extra dots); without them it is 127.0.0.1.
    try {
      host = new URL(`http://${host}/`).hostname;
    } catch {
      return true;
    }
  }
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = parseIPv6(host.slice(1, -1));
    return groups === null ? true : isPrivateIPv6(groups);
  }
  const v4 = parseIPv4(host);
  if (v4 !== null) return isPrivateIPv4(v4);
  if (host === "" || LOCAL_NAMES.has(host)) return true;
  if (LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return true;
  // A single-label name ("intranet", "metadata") resolves through local search domains, never publicly.
  if (!host.includes(".")) return true;
  return false;
}

/** Whether a resolved address (dotted IPv4 or IPv6 text, as DNS answers give them) is not a public destination. */
export function isPrivateAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return isPrivateIPv4(v4);
  const v6 = parseIPv6(address.replace(/^\[|\]$/g, ""));
  // Anything that is not an address at all is not one we will connect to.
  return v6 === null ? true : isPrivateIPv6(v6);
}

/** Whether the host is an address literal (then there is nothing to resolve). */
export const isAddressLiteral = (hostname: string) => hostname.startsWith("[") || parseIPv4(hostname) !== null;
