import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { followerSummary, publicationAnalytics, summary } from "../lib/analytics/overview";
import { dayList, fillSeries, seriesDelta, sumSeries } from "../lib/analytics/series";

const NOW = new Date("2026-11-24T12:00:00Z");

describe("analytics series (pure)", () => {
  it("dayList runs from the range's first day to today, one entry per day", () => {
    fc.assert(
      fc.property(fc.constantFrom(7, 30, 90), fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }), (days, now) => {
        const list = dayList(now, days);
        expect(list).toHaveLength(days + 1);
        expect(list.at(-1)).toBe(now.toISOString().slice(0, 10));
        expect(list[0]).toBe(new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10));
        expect(new Set(list).size).toBe(days + 1);
        expect([...list].sort()).toEqual(list);
      }),
    );
  });

  it("fillSeries carries the last value forward and never invents one before the first", () => {
    const days = dayList(NOW, 30);
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...days), fc.nat()), fc.option(fc.nat(), { nil: undefined }), (points, baseline) => {
        const map = new Map(Object.entries(points));
        const s = fillSeries(days, map, baseline);
        const firstKnown = baseline !== undefined ? 0 : days.findIndex((d) => map.has(d));
        expect(s).toHaveLength(firstKnown === -1 ? 0 : days.length - firstKnown);
        for (const p of s) if (map.has(p.date)) expect(p.value).toBe(map.get(p.date));
        // Between measured days the value is the previous one.
        for (let i = 1; i < s.length; i++) if (!map.has(s[i].date)) expect(s[i].value).toBe(s[i - 1].value);
        const delta = seriesDelta(s, baseline);
        if (s.length) expect(delta).toBe(s.at(-1)!.value - (baseline ?? s[0].value));
        else expect(delta).toBeNull();
      }),
    );
  });

  it("sumSeries adds the accounts known on each day", () => {
    const days = dayList(NOW, 7);
    expect(
      sumSeries(
        [
          [
            { date: days[5], value: 2 },
            { date: days[6], value: 3 },
          ],
          [{ date: days[6], value: 10 }],
        ],
        days,
      ),
    ).toEqual([
      { date: days[5], value: 2 },
      { date: days[6], value: 13 },
    ]);
  });

  it("summary deltas are current minus previous, whatever the totals", () => {
    const totals = fc.record({
      published: fc.nat(),
      engagement: fc.nat(),
      engagement_measured: fc.nat(),
      views: fc.nat(),
      views_measured: fc.nat(),
      impressions: fc.nat(),
      impressions_measured: fc.nat(),
      reach: fc.nat(),
      reach_measured: fc.nat(),
      accounts: fc.nat(),
      first_collected_ms: fc.constant(null),
      last_collected_ms: fc.constant(null),
    });
    fc.assert(
      fc.property(totals, totals, (cur, prev) => {
        const s = summary(cur, prev, { value: 0, delta: 0, measured: 0 });
        for (const k of ["engagement", "views", "impressions", "reach"] as const)
          expect(s[k]).toEqual({ value: cur[k], delta: cur[k] - prev[k], measured: cur[`${k}_measured`] });
        expect(s.published).toBe(cur.published);
      }),
    );
  });

  it("followerSummary counts only measured accounts", () => {
    expect(
      followerSummary([
        { accountId: "a", series: [{ date: "d", value: 5 }], delta: 2 },
        { accountId: "b", series: [], delta: null },
      ]),
    ).toEqual({ value: 5, delta: 2, measured: 1 });
  });

  it("publication roll-up sums metrics and counts measured renditions per metric", () => {
    const r = (metrics: Record<string, number>, engagement: number) =>
      ({ metrics, engagement, published_at: "2026-11-20T00:00:00.000Z", last_synced_at: null }) as any;
    const p = publicationAnalytics({ publication_id: "pub", title: "t", source_text: "x" }, [r({ likes: 2, views: 5 }, 2), r({ views: 1 }, 0)]);
    expect(p).toMatchObject({ engagement: 2, engagement_measured: 1, metrics: { likes: 2, views: 6 }, measured: { likes: 1, views: 2 } });
  });
});
