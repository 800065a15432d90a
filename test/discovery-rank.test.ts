import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_CARDS, rankOpportunities } from "../lib/discovery/rank";
import type { Signal } from "../lib/discovery/types";

/** The ranker is pure: any signals give well-formed cards, the same signals the same cards (order of arrival aside). */

const signal = fc.record({
  kind: fc.constantFrom("publication" as const, "content" as const, "media" as const, "build" as const, "expertise" as const, "opinion" as const),
  id: fc.stringMatching(/^[a-z0-9]{1,12}$/),
  date: fc.option(
    fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
    { nil: null },
  ),
  title: fc.string({ unit: "grapheme", maxLength: 60 }),
  text: fc.string({ unit: "grapheme", maxLength: 300 }),
  engagement: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }),
});
const platforms = fc.uniqueArray(fc.constantFrom("bluesky", "mastodon", "webhook"), { minLength: 1, maxLength: 3 });

describe("rankOpportunities", () => {
  it("any signals: at most five cards, 3–5 angles, one treatment per platform, real signal dates, stable ids, deterministic", () => {
    fc.assert(
      fc.property(fc.uniqueArray(signal, { maxLength: 30, selector: (s) => s.id }), platforms, (signals: Signal[], ps) => {
        const cards = rankOpportunities(signals, ps);
        expect(rankOpportunities(structuredClone(signals), [...ps])).toEqual(cards);
        expect(cards.length).toBeLessThanOrEqual(MAX_CARDS);
        const dates = new Set(signals.map((s) => s.date));
        expect(new Set(cards.map((c) => c.id)).size).toBe(cards.length);
        for (const c of cards) {
          expect(c.angles.length).toBeGreaterThanOrEqual(3);
          expect(c.angles.length).toBeLessThanOrEqual(5);
          expect(c.platform_treatments.map((t) => t.platform)).toEqual(ps);
          if (c.signal_date !== null) expect(dates.has(c.signal_date)).toBe(true);
          for (const text of [c.title, c.hook, c.why_it_fits, c.why_now]) expect(typeof text).toBe("string");
        }
      }),
      { numRuns: 200 },
    );
  });

  it("ranks a measured, recent topic above an old unmeasured one", () => {
    const cards = rankOpportunities(
      [
        { kind: "publication", id: "p1", date: "2026-01-01T00:00:00.000Z", title: "Gardening basics", text: "Gardening in winter is hard.", engagement: 0 },
        {
          kind: "content",
          id: "c1",
          date: "2026-11-01T00:00:00.000Z",
          title: "Sourdough troubleshooting",
          text: "Sourdough starters need care.",
          engagement: 500,
        },
        { kind: "publication", id: "p2", date: "2026-10-30T00:00:00.000Z", title: "Sourdough hydration", text: "Sourdough at 75% hydration.", engagement: 40 },
      ],
      ["bluesky"],
    );
    expect(cards[0].title.toLowerCase()).toContain("sourdough");
    expect(cards[0].signal_date).toBe("2026-11-01T00:00:00.000Z");
  });
});
