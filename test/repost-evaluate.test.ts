import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RepostMetric, RepostPolicyRule } from "../db/schema/repost";
import { decide, growthPercent, metricValue, plateaued, thresholdsMet, type PostFacts, type StageState } from "../lib/repost/evaluate";

const MIN = 60_000;
const HOUR = 60 * MIN;
const METRICS: RepostMetric[] = ["likes", "reposts", "replies", "views", "engagement"];

const arbRule: fc.Arbitrary<RepostPolicyRule> = fc.record({
  match: fc.constantFrom("all" as const, "any" as const),
  thresholds: fc.uniqueArray(fc.record({ metric: fc.constantFrom(...METRICS), min: fc.integer({ min: 0, max: 1000 }) }), {
    selector: (t) => t.metric,
    maxLength: 5,
  }),
  window_hours: fc.integer({ min: 1, max: 168 }),
  plateau: fc.option(fc.record({ checks: fc.integer({ min: 2, max: 10 }), max_growth_percent: fc.integer({ min: 0, max: 100 }) }), { nil: undefined }),
  stages: fc.array(fc.record({ delay_minutes: fc.integer({ min: 0, max: 600 }) }), { minLength: 1, maxLength: 5 }),
  unrepost_previous: fc.boolean(),
});
const arbLatest = fc.dictionary(fc.constantFrom("likes", "reposts", "replies", "views"), fc.integer({ min: 0, max: 2000 }));
const arbPost: fc.Arbitrary<PostFacts> = fc.record({
  publishedAtMs: fc.constant(1_700_000_000_000),
  latest: arbLatest,
  engagementHistory: fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 12 }),
});

describe("repost rule evaluation (pure)", () => {
  it("all means every threshold, any means at least one; none set always qualifies", () => {
    fc.assert(
      fc.property(arbRule, arbLatest, (rule, latest) => {
        const ok = rule.thresholds.map((t) => {
          const v = metricValue(latest, t.metric);
          return v !== undefined && v >= t.min;
        });
        const expected = rule.thresholds.length === 0 ? true : rule.match === "all" ? ok.every(Boolean) : ok.some(Boolean);
        expect(thresholdsMet(rule, latest).met).toBe(expected);
      }),
    );
    // An unmeasured metric never meets a threshold, even a minimum of 0.
    expect(thresholdsMet({ match: "all", thresholds: [{ metric: "views", min: 0 }] }, { likes: 5 }).met).toBe(false);
    expect(
      thresholdsMet(
        {
          match: "any",
          thresholds: [
            { metric: "views", min: 0 },
            { metric: "likes", min: 5 },
          ],
        },
        { likes: 5 },
      ).met,
    ).toBe(true);
    expect(metricValue({ likes: 2, reposts: 3 }, "engagement")).toBe(5);
  });

  it("raising any value never turns a met rule into an unmet one (monotone)", () => {
    fc.assert(
      fc.property(
        arbRule,
        arbLatest,
        fc.constantFrom("likes", "reposts", "replies", "views"),
        fc.integer({ min: 1, max: 100 }),
        (rule, latest, metric, extra) => {
          const more = { ...latest, [metric]: (latest[metric] ?? 0) + extra };
          if (thresholdsMet(rule, latest).met) expect(thresholdsMet(rule, more).met).toBe(true);
        },
      ),
    );
  });

  it("plateau: needs `checks` measurements and growth within the limit across the last ones", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10 }),
        fc.integer({ min: 0, max: 100 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 12 }),
        (checks, max, history) => {
          const res = plateaued({ checks, max_growth_percent: max }, history);
          if (history.length < checks) {
            expect(res.ok).toBe(false);
            return;
          }
          const w = history.slice(-checks);
          expect(res.ok).toBe(growthPercent(w[0], w[w.length - 1]) <= max);
        },
      ),
    );
    expect(plateaued({ checks: 3, max_growth_percent: 5 }, [10, 100, 102, 104]).ok).toBe(true);
    expect(plateaued({ checks: 3, max_growth_percent: 5 }, [100, 120, 150]).ok).toBe(false);
    expect(plateaued({ checks: 2, max_growth_percent: 0 }, [0, 0]).ok).toBe(true);
    expect(plateaued({ checks: 2, max_growth_percent: 1000 }, [0, 1]).ok).toBe(false);
  });

  it("stage 0: never before its delay, never after the window, only when thresholds (and plateau) hold", () => {
    fc.assert(
      fc.property(arbRule, arbPost, fc.integer({ min: -HOUR, max: 200 * HOUR }), (rule, post, age) => {
        const now = post.publishedAtMs + age;
        const d = decide(rule, post, [], now);
        if (d.kind !== "repost") return;
        expect(d.stage).toBe(0);
        expect(d.unrepostPrevious).toBe(false);
        expect(age).toBeGreaterThanOrEqual(rule.stages[0].delay_minutes * MIN);
        expect(age).toBeLessThanOrEqual(rule.window_hours * HOUR);
        expect(thresholdsMet(rule, post.latest).met).toBe(true);
        if (rule.plateau) expect(plateaued(rule.plateau, post.engagementHistory).ok).toBe(true);
      }),
    );
  });

  it("stage k follows stage k-1 only once it is done, after its own delay, undoing it when the rule says so", () => {
    fc.assert(
      fc.property(
        arbRule,
        arbPost,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 700 * MIN }),
        fc.constantFrom("queued" as const, "done" as const, "failed" as const),
        (rule, post, doneUpTo, since, lastStatus) => {
          const k = Math.min(doneUpTo, rule.stages.length - 1);
          const completedAt = post.publishedAtMs + HOUR;
          const stages: StageState[] = Array.from({ length: k + 1 }, (_, i) => ({
            stage: i,
            status: i === k ? lastStatus : "done",
            completedAtMs: i === k && lastStatus === "queued" ? null : completedAt,
          }));
          const d = decide(rule, post, stages, completedAt + since);
          if (k + 1 >= rule.stages.length) {
            expect(d.kind).toBe("stop");
            return;
          }
          if (lastStatus === "queued") {
            expect(d.kind).toBe("wait");
            return;
          }
          if (lastStatus === "failed") {
            expect(d.kind).toBe("stop");
            return;
          }
          const due = since >= rule.stages[k + 1].delay_minutes * MIN;
          expect(d.kind).toBe(due ? "repost" : "wait");
          if (d.kind === "repost") expect(d).toMatchObject({ stage: k + 1, unrepostPrevious: rule.unrepost_previous });
        },
      ),
    );
  });

  it("a rule whose thresholds are never met never reposts, at any time", () => {
    const rule: RepostPolicyRule = {
      match: "all",
      thresholds: [{ metric: "likes", min: 10 }],
      window_hours: 24,
      stages: [{ delay_minutes: 0 }],
      unrepost_previous: false,
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 48 * HOUR }), (likes, age) => {
        expect(decide(rule, { publishedAtMs: 0, latest: { likes }, engagementHistory: [] }, [], age).kind).not.toBe("repost");
      }),
    );
  });

  it("examples: reasons say what was compared", () => {
    const rule: RepostPolicyRule = {
      match: "any",
      thresholds: [
        { metric: "likes", min: 5 },
        { metric: "reposts", min: 3 },
      ],
      window_hours: 2,
      plateau: { checks: 2, max_growth_percent: 10 },
      stages: [{ delay_minutes: 10 }, { delay_minutes: 30 }],
      unrepost_previous: true,
    };
    const post = { publishedAtMs: 0, latest: { likes: 6, reposts: 1 }, engagementHistory: [7, 7] };
    expect(decide(rule, post, [], 5 * MIN)).toMatchObject({ kind: "wait" });
    expect(decide(rule, post, [], 15 * MIN)).toEqual({
      kind: "repost",
      stage: 0,
      unrepostPrevious: false,
      reason: "stage 0: any of: likes 6 ≥ 5, reposts 1 < 3; plateau: grew 0% over 2 measurements (≤ 10%)",
    });
    expect(decide(rule, { ...post, engagementHistory: [5, 7] }, [], 15 * MIN)).toMatchObject({
      kind: "wait",
      reason: expect.stringContaining("still growing"),
    });
    expect(decide(rule, post, [], 3 * HOUR)).toMatchObject({ kind: "stop" });
    const done: StageState[] = [{ stage: 0, status: "done", completedAtMs: 15 * MIN }];
    expect(decide(rule, post, done, 40 * MIN)).toMatchObject({ kind: "wait" });
    // Later stages run even past the window: the post qualified at stage 0.
    expect(decide(rule, post, done, 5 * HOUR)).toMatchObject({ kind: "repost", stage: 1, unrepostPrevious: true });
    expect(decide(rule, post, [...done, { stage: 1, status: "done", completedAtMs: HOUR }], 9 * HOUR)).toMatchObject({ kind: "stop" });
  });
});
