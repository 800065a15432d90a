import { describe, expect, it } from "vitest";
import gateway from "../functions/all-groups";
import { env, expectProblem, newUser } from "./helpers/harness";

/** A gateway whose tokens may make 5 requests a minute (RATE_LIMIT_PER_MINUTE), called in-process. */
const limited = { ...env, RATE_LIMIT_PER_MINUTE: "5" };
async function me(token: string) {
  const res = await gateway.request("/auth/me", { headers: { authorization: `Bearer ${token}` } }, limited);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, text };
}

describe("per-token rate limit (CONTRACT §2)", () => {
  it("answers 429 rate-limited with Retry-After past the limit, per token", async () => {
    const [a, b] = await Promise.all([newUser(), newUser()]);
    // Stay clear of a minute boundary, where the window (rightly) starts again.
    if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    for (let i = 0; i < 5; i++) expect((await me(a.token)).status).toBe(200);
    const refused = await me(a.token);
    expectProblem(refused, 429, "rate-limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another token has its own count.
    expect((await me(b.token)).status).toBe(200);
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
