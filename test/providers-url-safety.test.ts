import { describe, expect, it } from "vitest";
import { isLocalHost } from "../lib/net/addresses";
import { checkOutboundUrl, normaliseInstanceUrl } from "../lib/net/outbound-url";
import { retryAtFrom } from "../lib/providers/http";

/** CONTRACT.md §6: outbound URLs to loopback or private addresses are refused unless ALLOW_PRIVATE_URLS. */

describe("outbound URL policy", () => {
  const refused = [
    "http://localhost/hook",
    "https://localhost:8443/",
    "https://app.localhost/",
    "https://printer.local/",
    "https://db.internal/",
    "https://router.home.arpa/",
    "https://intranet/",
    "https://0.0.0.0/",
    "https://127.0.0.1/",
    "https://127.8.9.10:99/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://172.31.255.255/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.64.0.1/",
    "https://[::1]/",
    "https://[::]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[fe80::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[64:ff9b::a00:1]/",
    "https://2130706433/", // 127.0.0.1 as one decimal number
    "https://0x7f.1/", // 127.0.0.1 in hex shorthand
    "https://017700000001/", // octal
    // Translators and tunnels to IPv4 (issue 8): NAT64, local-use NAT64, 6to4, Teredo, whatever they embed.
    "https://[64:ff9b::808:808]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[64:ff9b:1::a00:1]/",
    "https://[64:ff9b:1:abcd::1]/",
    "https://[2002:c0a8:101::1]/",
    "https://[2002:808:808::1]/",
    "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "https://[2001::1]/",
    "https://[::ffff:0:7f00:1]/", // IPv4-translated
    "https://[100::1]/", // discard-only
    // Trailing dots, one or more (the URL parser keeps all but one of them on names).
    "https://localhost./",
    "https://localhost../",
    "https://localhost.../hook",
    "https://127.0.0.1../",
    "https://10.0.0.1.../",
    "https://0x7f.1../",
    "https://2130706433../",
    "https://printer.local../",
    "https://intranet../",
    "https://a..example.com/",
  ];

  it.each(refused)("refuses %s without ALLOW_PRIVATE_URLS, allows it with", (url) => {
    const verdict = checkOutboundUrl(url, false);
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/loopback, private or local/);
    expect(checkOutboundUrl(url, true).ok).toBe(true);
  });

  it.each([
    "https://example.com/hook",
    "https://8.8.8.8/",
    "https://172.32.0.1/",
    "https://[2606:4700::1111]/",
    "https://mastodon.social",
    "https://example.com./",
    "https://[2001:4860:4860::8888]/",
    "https://[2003::1]/",
  ])("accepts the public %s", (url) => {
    expect(checkOutboundUrl(url, false).ok).toBe(true);
  });

  it("requires https for public hosts unless ALLOW_PRIVATE_URLS; refuses other schemes and embedded credentials", () => {
    expect(checkOutboundUrl("http://example.com/hook", false)).toMatchObject({ ok: false, reason: "must use https" });
    expect(checkOutboundUrl("http://example.com/hook", true).ok).toBe(true);
    expect(checkOutboundUrl("ftp://example.com/", true).ok).toBe(false);
    expect(checkOutboundUrl("file:///etc/passwd", true).ok).toBe(false);
    expect(checkOutboundUrl("https://user:pw@example.com/", true).ok).toBe(false);
    expect(checkOutboundUrl("not a url", true).ok).toBe(false);
    expect(checkOutboundUrl(`https://example.com/${"x".repeat(3000)}`, true).ok).toBe(false);
  });

  it("host classification edge cases", () => {
    expect(isLocalHost("LOCALHOST.")).toBe(true);
    expect(isLocalHost("[::ffff:8.8.8.8]")).toBe(false);
    expect(isLocalHost("[not-an-ip]")).toBe(true);
    expect(isLocalHost("example.localhost")).toBe(true);
    expect(isLocalHost("localhost.example.com")).toBe(false);
  });

  it("normalises instance URLs to an origin", () => {
    expect(normaliseInstanceUrl("Mastodon.Social/")).toBe("https://mastodon.social");
    expect(normaliseInstanceUrl("https://bsky.social/xrpc/")).toBe("https://bsky.social");
    expect(normaliseInstanceUrl("http://127.0.0.1:3000")).toBe("http://127.0.0.1:3000");
  });
});

describe("Retry-After", () => {
  it("reads seconds, HTTP dates and rate-limit reset epochs", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAtFrom(new Headers({ "retry-after": "120" }), now)!.getTime()).toBe(now + 120_000);
    expect(retryAtFrom(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:05:00 GMT" }), now)!.getTime()).toBe(now + 300_000);
    expect(retryAtFrom(new Headers({ "ratelimit-reset": String(now / 1000 + 60) }), now)!.getTime()).toBe(now + 60_000);
    expect(retryAtFrom(new Headers({ "x-ratelimit-reset": "2026-01-01T00:10:00.000Z" }), now)!.getTime()).toBe(now + 600_000);
    expect(retryAtFrom(new Headers(), now)).toBeUndefined();
  });
});
