import { describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { issueToken } from "../lib/auth/tokens";
import { env, expectProblem, newUser, withDb } from "./helpers/harness";

/**
 * Rate limits (CONTRACT §2, issue 27), in-process, where the isolate's own counter stands in for the Workers
 * Rate Limiting bindings: 5 requests a minute (RATE_LIMIT_PER_MINUTE) per person, and per client address for
 * requests that carry no person. `cf-connecting-ip` is the address, as Cloudflare's edge sets it.
 */
const limited = { ...env, RATE_LIMIT_PER_MINUTE: "5" };

async function call(path: string, opts: { token?: string; address?: string; method?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.address) headers["cf-connecting-ip"] = opts.address;
  const res = await gateway.request(path, { method: opts.method ?? "GET", headers }, limited);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, text };
}

/** Stay clear of a minute boundary, where the window (rightly) starts again. */
async function awayFromMinuteBoundary() {
  if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
}

/** A unique documentation-range address (RFC 5737) per test run, so reruns within a minute do not collide. */
const address = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}`;

describe("rate limits", () => {
  it("counts a person's requests together, however many tokens they hold", async () => {
    const [person, other] = await Promise.all([newUser(), newUser()]);
    // More tokens made directly, so that making them is not counted.
    const [second, third] = await withDb((db) => Promise.all([issueToken(db, person.id, "two"), issueToken(db, person.id, "three")]));
    await awayFromMinuteBoundary();
    for (const token of [person.token, second.token, third.token, person.token, second.token]) expect((await call("/auth/me", { token })).status).toBe(200);
    const refused = await call("/auth/me", { token: third.token });
    expectProblem(refused, 429, "rate-limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectProblem(await call("/auth/me", { token: person.token }), 429, "rate-limited");
    // Another person has their own budget.
    expect((await call("/auth/me", { token: other.token })).status).toBe(200);
  });

  it("limits requests without a credential, or with a failed one, per client address", async () => {
    const flooder = address();
    await awayFromMinuteBoundary();
    for (let i = 0; i < 5; i++)
      expectProblem(await call("/auth/me", { address: flooder, token: i % 2 ? `hld_bogus${i}${"x".repeat(20)}` : undefined }), 401, "unauthorized");
    const refused = await call("/auth/me", { address: flooder });
    expectProblem(refused, 429, "rate-limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Over its budget, the address's credentials are not even looked up, and its public calls are refused too.
    expectProblem(await call("/auth/me", { address: flooder, token: `hld_bogus${"y".repeat(30)}` }), 429, "rate-limited");
    expectProblem(await call("/auth/sessions/passkey/start", { address: flooder, method: "POST" }), 429, "rate-limited");
    // Another address is not affected.
    expectProblem(await call("/auth/me", { address: `203.0.113.${Math.floor(Math.random() * 250) + 1}` }), 401, "unauthorized");
  });

  it("counts the public passkey sign-in start per address; an IPv6 client by its /64", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 65_000).toString(16)}:1`;
    await awayFromMinuteBoundary();
    for (let i = 1; i <= 5; i++) expect((await call("/auth/sessions/passkey/start", { address: `${prefix}::${i}`, method: "POST" })).status).toBe(200);
    expectProblem(await call("/auth/sessions/passkey/start", { address: `${prefix}:0:0:0:ffff`, method: "POST" }), 429, "rate-limited");
    expect((await call("/auth/sessions/passkey/start", { address: `${prefix.replace(/:1$/, ":2")}::1`, method: "POST" })).status).toBe(200);
  });

  it("asks the Workers Rate Limiting bindings with the person's key for every token, and the address's otherwise", async () => {
    const person = await newUser();
    const second = await withDb((db) => issueToken(db, person.id, "two"));
    const asked: [string, string][] = [];
    // Cloudflare's binding as the Worker sees it: this one refuses a key's fourth request.
    const binding = (name: string) => ({
      limit: async ({ key }: { key: string }) => {
        asked.push([name, key]);
        return { success: asked.filter(([, k]) => k === key).length <= 3 };
      },
    });
    const bound = { ...env, RATE_LIMITER: binding("RATE_LIMITER"), RATE_LIMITER_ADDRESS: binding("RATE_LIMITER_ADDRESS") };
    const get = (token?: string) =>
      gateway.request("/auth/me", { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "cf-connecting-ip": "192.0.2.77" } }, bound);
    expect((await get(person.token)).status).toBe(200);
    expect((await get(second.token)).status).toBe(200);
    expect((await get()).status).toBe(401);
    expect(asked).toEqual([
      ["RATE_LIMITER", `user:${person.id}`],
      ["RATE_LIMITER", `user:${person.id}`],
      ["RATE_LIMITER_ADDRESS", "address:192.0.2.77"],
    ]);
    expect((await get(person.token)).status).toBe(200);
    expect((await get(second.token)).status).toBe(429);
  });

  it("is documented on every authenticated operation, with the other statuses the shared middleware gives", async () => {
    const doc: any = await (await gateway.request("/openapi.json", {}, env)).json();
    for (const [path, methods] of Object.entries<Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const statuses = Object.keys(op.responses);
        // A public operation takes no token: no 401 (the passkey sign-in still declares its per-address 429).
        const expected = op.security?.length === 0 ? ["422"] : ["401", "422", "429"];
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(expected));
        if (method !== "get") expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["400", "413"]));
      }
    }
  });
});
