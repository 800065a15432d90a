import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPrivateAddress } from "../lib/net/addresses";
import { checkResolvedHost, dohResolver, type Resolver } from "../lib/net/resolve";
import { providerFetch } from "../lib/providers/http";
import { ProviderError } from "../lib/providers/types";

/** A fixed table of names, as a resolver answers them (pure logic: what is checked, not how DNS works). */
const table = (entries: Record<string, string[] | "nxdomain" | "down">): Resolver & { asked: string[] } => {
  const asked: string[] = [];
  const resolve = async (name: string) => {
    asked.push(name);
    const entry = entries[name];
    const { ResolveError } = await import("../lib/net/resolve");
    if (entry === undefined || entry === "nxdomain") throw new ResolveError("not_found");
    if (entry === "down") throw new ResolveError("unavailable");
    return entry;
  };
  return Object.assign(resolve, { asked });
};

describe("names checked at send time (lib/net/resolve.ts)", () => {
  const resolve = table({
    "public.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "rebound.example": ["93.184.215.14", "10.0.0.7"],
    "metadata.example": ["169.254.169.254"],
    "v6-loopback.example": ["::1"],
    "nat64.example": ["64:ff9b::a9fe:a9fe"],
    "sixtofour.example": ["2002:a00:1::1"],
    "empty.example": [],
    "down.example": "down",
  });

  it("accepts a name whose every address is public, and address literals without resolving", async () => {
    expect(await checkResolvedHost("public.example", resolve)).toMatchObject({ ok: true, addresses: expect.arrayContaining(["93.184.215.14"]) });
    expect(await checkResolvedHost("public.example.", resolve)).toMatchObject({ ok: true });
    expect(resolve.asked.at(-1)).toBe("public.example");
    const before = resolve.asked.length;
    expect(await checkResolvedHost("8.8.8.8", resolve)).toEqual({ ok: true, addresses: [] });
    expect(await checkResolvedHost("[2606:4700::1111]", resolve)).toEqual({ ok: true, addresses: [] });
    expect(resolve.asked.length).toBe(before);
  });

  it.each(["rebound.example", "metadata.example", "v6-loopback.example", "nat64.example", "sixtofour.example", "rebound.example.."])(
    "refuses %s: one private address is enough",
    async (name) => {
      expect(await checkResolvedHost(name, resolve)).toMatchObject({ ok: false, code: "url_refused" });
    },
  );

  it("tells a missing name from a resolver that is down", async () => {
    expect(await checkResolvedHost("nowhere.example", resolve)).toMatchObject({ ok: false, code: "not_found" });
    expect(await checkResolvedHost("empty.example", resolve)).toMatchObject({ ok: false, code: "not_found" });
    expect(await checkResolvedHost("down.example", resolve)).toMatchObject({ ok: false, code: "dns_unavailable" });
  });

  it("classifies resolved addresses", () => {
    for (const a of ["10.1.1.1", "127.0.0.1", "::1", "fe80::1", "fd00::1", "64:ff9b::808:808", "2001:0:1::1", "garbage"])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["8.8.8.8", "2606:4700::1111", "2a00:1450:4001::200e"]) expect(isPrivateAddress(a), a).toBe(false);
  });

  it("providerFetch refuses before connecting when the name resolves to a private address, unless ALLOW_PRIVATE_URLS", async () => {
    const err = await providerFetch("https://rebound.example/hook", { method: "POST", allowPrivateUrls: false, resolve }).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).info).toMatchObject({ kind: "configuration", code: "url_refused", retryable: false });
    const down = await providerFetch("https://down.example/hook", { method: "POST", allowPrivateUrls: false, resolve }).catch((e) => e);
    expect((down as ProviderError).info).toMatchObject({ kind: "network", code: "dns_unavailable", retryable: true });
    expect((down as ProviderError).info.outcomeUnknown).toBeFalsy();
    // With ALLOW_PRIVATE_URLS nothing is resolved here (local development talks to local peers).
    const asked = resolve.asked.length;
    await providerFetch("http://127.0.0.1:9/hook", { allowPrivateUrls: true, resolve, timeoutMs: 2000 }).catch(() => undefined);
    expect(resolve.asked.length).toBe(asked);
  });
});

describe("DNS over HTTPS (dohResolver)", () => {
  // A stand-in for the public DNS-over-HTTPS service (cloudflare-dns.com), which cannot be reached from here.
  let server: http.Server;
  let endpoint: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url!, "http://doh");
      const name = url.searchParams.get("name")!;
      const type = url.searchParams.get("type")!;
      requests.push(`${name}/${type}`);
      if (req.headers.accept !== "application/dns-json") return void res.writeHead(400).end();
      const answer = (records: { type: number; data: string; TTL: number }[], Status = 0) =>
        res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify({ Status, Answer: records }));
      if (name === "gone.example") return answer([], 3);
      if (name === "broken.example") return answer([], 2);
      if (name === "huge.example") return void res.writeHead(200).end("x".repeat(100_000));
      if (name === "cname.example")
        return answer(
          type === "A"
            ? [
                { type: 5, data: "target.example.", TTL: 30 },
                { type: 1, data: "192.168.1.20", TTL: 30 },
              ]
            : [],
        );
      answer(type === "A" ? [{ type: 1, data: "93.184.215.14", TTL: 300 }] : [{ type: 28, data: "2606:2800:21f::1", TTL: 300 }]);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns-query`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("reads A and AAAA answers, follows what a CNAME leads to, and caches", async () => {
    const resolve = dohResolver(endpoint);
    expect(await resolve("www.example")).toEqual(["93.184.215.14", "2606:2800:21f::1"]);
    const count = requests.length;
    expect(await resolve("WWW.example")).toEqual(["93.184.215.14", "2606:2800:21f::1"]);
    expect(requests.length).toBe(count);
    expect(await checkResolvedHost("cname.example", resolve)).toMatchObject({ ok: false, code: "url_refused" });
  });

  it("NXDOMAIN is not_found; SERVFAIL, oversized or unreachable is unavailable", async () => {
    const resolve = dohResolver(endpoint);
    expect(await checkResolvedHost("gone.example", resolve)).toMatchObject({ code: "not_found" });
    expect(await checkResolvedHost("broken.example", resolve)).toMatchObject({ code: "dns_unavailable" });
    expect(await checkResolvedHost("huge.example", resolve)).toMatchObject({ code: "dns_unavailable" });
    expect(await checkResolvedHost("www.example", dohResolver("http://127.0.0.1:9/dns-query", { timeoutMs: 2000 }))).toMatchObject({ code: "dns_unavailable" });
  });
});
