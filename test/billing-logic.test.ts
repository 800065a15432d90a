import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyContinuation, signContinuation, type PurchaseFacts } from "../lib/billing/continuation";
import { accessRestricted, addMonths, checkAddition, DAY_MS, foldProviderCosts, overLimits, periodEnd, periodStart } from "../lib/billing/logic";
import { LIMIT_NAMES, PLANS, paymentRequiredNow, planOrThrow } from "../lib/billing/plans";
import { verifiedEvent } from "../lib/billing/stripe-client";

const date = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true });

describe("plans are data", () => {
  it("free, pro, team and self_hosted; each purchasable plan has prices, a trial length and every limit", () => {
    expect(PLANS.map((p) => p.id)).toEqual(["free", "pro", "team", "self_hosted"]);
    for (const id of ["free", "pro", "team"]) {
      const plan = planOrThrow(id);
      expect(Object.keys(plan.limits).sort()).toEqual([...LIMIT_NAMES].sort());
      expect(Number.isInteger(plan.price_minor.month) && Number.isInteger(plan.price_minor.year)).toBe(true);
      expect(plan.trial_days).toBeGreaterThanOrEqual(0);
    }
    expect(planOrThrow("self_hosted").limits).toEqual({});
    expect(paymentRequiredNow(planOrThrow("free"), "month")).toBe(false);
    expect(paymentRequiredNow(planOrThrow("team"), "year")).toBe(true);
  });
});

describe("billing periods", () => {
  it("the calendar month without an anchor", () => {
    const now = new Date("2026-11-25T13:00:00Z");
    expect(periodStart(now).toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(periodEnd(now).toISOString()).toBe("2026-12-01T00:00:00.000Z");
  });

  it("monthly anniversaries of the anchor, clamped to short months", () => {
    const anchor = new Date("2026-01-31T10:00:00Z");
    expect(periodStart(new Date("2026-03-01T00:00:00Z"), anchor).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(periodEnd(new Date("2026-03-01T00:00:00Z"), anchor).toISOString()).toBe("2026-03-31T10:00:00.000Z");
    expect(periodStart(new Date("2026-01-31T09:59:59Z"), anchor).toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });

  it("property: start ≤ now < end, and the period is 28 to 31 days long", () => {
    fc.assert(
      fc.property(date, date, fc.boolean(), (a, b, withAnchor) => {
        const [anchor, now] = a <= b ? [a, b] : [b, a];
        const start = periodStart(now, withAnchor ? anchor : null);
        const end = periodEnd(now, withAnchor ? anchor : null);
        expect(start.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(end.getTime()).toBeGreaterThan(now.getTime());
        const days = (end.getTime() - start.getTime()) / DAY_MS;
        expect(days).toBeGreaterThanOrEqual(28 - 1e-9);
        expect(days).toBeLessThanOrEqual(31 + 1e-9);
      }),
    );
  });

  it("property: addMonths keeps the time of day and never moves backwards", () => {
    fc.assert(
      fc.property(date, fc.integer({ min: 0, max: 240 }), (anchor, k) => {
        const next = addMonths(anchor, k + 1);
        expect(next.getTime()).toBeGreaterThan(addMonths(anchor, k).getTime());
        expect(next.getUTCHours()).toBe(anchor.getUTCHours());
        expect(next.getUTCDate()).toBeLessThanOrEqual(anchor.getUTCDate());
      }),
    );
  });
});

describe("usage against limits", () => {
  const limits = { workspaces: 1, members: 2 };

  it("over means strictly more than the limit; no limit means never over", () => {
    expect(overLimits(limits, { workspaces: 1, members: 2 })).toEqual([]);
    expect(overLimits(limits, { workspaces: 2, members: 3 })).toEqual(["workspaces", "members"]);
    expect(overLimits({}, { workspaces: 10_000 })).toEqual([]);
  });

  it("an addition that would pass the limit is refused, naming it with the usage now", () => {
    expect(checkAddition(limits, { workspaces: 0 }, "workspaces", 1)).toBeNull();
    expect(checkAddition(limits, { workspaces: 1 }, "workspaces", 1)).toEqual({ limit: "workspaces", allowed: 1, usage: 1 });
    expect(checkAddition({ ai_budget_microusd: 100 }, { ai_budget_microusd: 100 }, "ai_budget_microusd", 0)).toEqual({
      limit: "ai_budget_microusd",
      allowed: 100,
      usage: 100,
    });
    expect(checkAddition({}, { workspaces: 99 }, "workspaces", 1)).toBeNull();
  });

  it("property: an allowed addition never leaves usage over the limit", () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.integer({ min: 1, max: 1000 }), (allowed, used, adding) => {
        const ok = checkAddition({ storage_bytes: allowed }, { storage_bytes: used }, "storage_bytes", adding) === null;
        expect(ok).toBe(used + adding <= allowed);
      }),
    );
  });

  it("access is restricted over a limit or after more than 7 days past due", () => {
    const now = new Date("2026-11-25T00:00:00Z");
    const base = { limits, usage: { workspaces: 1 }, status: "active", pastDueSince: null, now };
    expect(accessRestricted(base)).toBe(false);
    expect(accessRestricted({ ...base, usage: { workspaces: 2 } })).toBe(true);
    expect(accessRestricted({ ...base, status: "past_due", pastDueSince: new Date(now.getTime() - 7 * DAY_MS) })).toBe(false);
    expect(accessRestricted({ ...base, status: "past_due", pastDueSince: new Date(now.getTime() - 7 * DAY_MS - 1) })).toBe(true);
  });

  it("folds the cost ledger per provider and operation, committed apart from reserved", () => {
    const costs = foldProviderCosts(
      [
        { provider: "openai-compatible", operation: "build", status: "committed", events: 2, units: 300, cost: 50 },
        { provider: "openai-compatible", operation: "build", status: "reserved", events: 1, units: 0, cost: 0 },
        { provider: "openai-compatible", operation: "discover", status: "committed", events: 1, units: 10, cost: 5 },
      ],
      { periodStart: "2026-11-01T00:00:00.000Z", budgetMicrousd: 1000 },
    );
    expect(costs).toEqual([
      {
        provider: "openai-compatible",
        currency: "USD",
        period_start: "2026-11-01T00:00:00.000Z",
        pricing_source_url: null,
        budget_microusd: 1000,
        cost_microusd: 55,
        event_count: 3,
        units: 310,
        reserved_cost_microusd: 0,
        reserved_event_count: 1,
        reserved_units: 0,
        operations: [
          { operation: "build", cost_microusd: 50, event_count: 2, units: 300, reserved_cost_microusd: 0, reserved_event_count: 1, reserved_units: 0 },
          { operation: "discover", cost_microusd: 5, event_count: 1, units: 10, reserved_cost_microusd: 0, reserved_event_count: 0, reserved_units: 0 },
        ],
      },
    ]);
  });
});

describe("continuation tokens", () => {
  const key = "test-instance-key-0123456789abcdef";
  const facts = (expires: Date): PurchaseFacts => ({
    plan_id: "pro",
    interval: "month",
    price: { amount_minor: 1900, currency: "usd" },
    trial: { days: 14, eligible: true },
    payment: { provider: "none", required_now: false },
    expires_at: expires.toISOString(),
  });

  it("round-trips for its user; refuses another user, another key, expiry and any altered character", async () => {
    const token = await signContinuation(key, "usr_a", facts(new Date(Date.now() + 60_000)));
    expect(await verifyContinuation(key, "usr_a", token)).toMatchObject({ ok: true, facts: { plan_id: "pro" } });
    expect(await verifyContinuation(key, "usr_b", token)).toEqual({ ok: false, reason: "other-user" });
    expect(await verifyContinuation("another-key-entirely-0123456789", "usr_a", token)).toEqual({ ok: false, reason: "signature" });
    expect(await verifyContinuation(key, "usr_a", token, new Date(Date.now() + 61_000))).toEqual({ ok: false, reason: "expired" });
    // The MAC's last character carries unused bits: its twin spelling (same bits that count) is refused too.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1];
    expect(await verifyContinuation(key, "usr_a", twin)).toEqual({ ok: false, reason: "malformed" });
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(..."abcXYZ019-_"), async (i, ch) => {
        fc.pre(token[i] !== ch && token[i] !== ".");
        const altered = token.slice(0, i) + ch + token.slice(i + 1);
        expect((await verifyContinuation(key, "usr_a", altered)).ok).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});

describe("Stripe webhook signatures (verified by Stripe's SDK, signed here as Stripe documents)", () => {
  const secret = "whsec_test_secret_value";
  const sign = (payload: string, at: number, key = secret) => `t=${at},v1=${createHmac("sha256", key).update(`${at}.${payload}`).digest("hex")}`;

  it("accepts Stripe's scheme within 5 minutes, refuses other payloads, secrets, old timestamps and junk", async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({ id: "evt_1", object: "event", type: "ping", created: now, data: { object: { id: "x" } } });
    expect((await verifiedEvent(payload, sign(payload, now - 290), secret))?.id).toBe("evt_1");
    expect(await verifiedEvent(payload, `${sign(payload, now)},v1=${"0".repeat(64)}`, secret)).not.toBeNull();
    expect(await verifiedEvent(payload, sign(payload, now - 301), secret)).toBeNull();
    expect(await verifiedEvent(`${payload} `, sign(payload, now), secret)).toBeNull();
    expect(await verifiedEvent(payload, sign(payload, now, "whsec_other"), secret)).toBeNull();
    expect(await verifiedEvent(payload, undefined, secret)).toBeNull();
    expect(await verifiedEvent(payload, "t=abc,v1=zz", secret)).toBeNull();
  });
});
