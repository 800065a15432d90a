import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RepostRuleData } from "../db/schema/repost";
import { decide, describeSeconds, horizonMs, plateaued, RULE_METRICS, thresholdsMet, type PostFacts, type StageState } from "../lib/repost/evaluate";
import { RepostRuleInput } from "../lib/schemas/repost-rule";

const MIN = 60;
const HOUR = 3600;

/** Rules as the API accepts them (CONTRACT §8 ranges), generated field by field. */
const arbRule: fc.Arbitrary<RepostRuleData> = fc
  .record({
    threshold_mode: fc.constantFrom("all" as const, "any" as const),
    min_likes: fc.integer({ min: 0, max: 50 }),
    min_reposts: fc.integer({ min: 0, max: 50 }),
    min_comments: fc.integer({ min: 0, max: 50 }),
    min_views: fc.integer({ min: 0, max: 500 }),
    evaluation_window_seconds: fc.integer({ min: HOUR, max: 7 * 24 * HOUR }),
    require_plateau: fc.boolean(),
    plateau_checks: fc.integer({ min: 2, max: 12 }),
    delay_seconds: fc.integer({ min: 0, max: 10 * HOUR }),
    stages: fc.array(fc.record({ delay_seconds: fc.integer({ min: 0, max: 10 * HOUR }), unrepost_previous: fc.boolean() }), { minLength: 1, maxLength: 5 }),
  })
  .filter((r) => r.min_likes + r.min_reposts + r.min_comments + r.min_views > 0);
const arbLatest = fc.dictionary(fc.constantFrom("likes", "reposts", "replies", "views"), fc.integer({ min: 0, max: 100 })) as fc.Arbitrary<PostFacts["latest"]>;
const arbPost: fc.Arbitrary<PostFacts> = fc.record({
  publishedAtMs: fc.constant(1_700_000_000_000),
  latest: arbLatest,
  history: fc.array(fc.integer({ min: 0, max: 500 }), { maxLength: 14 }),
});
const at = (post: PostFacts, seconds: number) => post.publishedAtMs + seconds * 1000;

describe("repost rule evaluation (pure)", () => {
  it("every generated rule is one the API accepts", () => {
    fc.assert(
      fc.property(arbRule, (rule) => {
        expect(RepostRuleInput.safeParse(rule).success).toBe(true);
      }),
    );
  });

  it("all means every minimum above 0, any means at least one; a minimum of 0 is no condition; unmeasured never meets one", () => {
    fc.assert(
      fc.property(arbRule, arbLatest, (rule, latest) => {
        const ok = RULE_METRICS.filter((m) => rule[m.field] > 0).map((m) => (latest[m.metric] ?? -1) >= rule[m.field]);
        expect(thresholdsMet(rule, latest).met).toBe(rule.threshold_mode === "all" ? ok.every(Boolean) : ok.some(Boolean));
      }),
    );
    const rule = { threshold_mode: "all" as const, min_likes: 0, min_reposts: 0, min_comments: 2, min_views: 0 };
    expect(thresholdsMet(rule, { likes: 0, replies: 2 })).toEqual({ met: true, reason: "all of: comments 2 ≥ 2" });
    expect(thresholdsMet(rule, { likes: 50 })).toEqual({ met: false, reason: "all of: comments unmeasured < 2" });
  });

  it("raising any value never turns a met rule into an unmet one (monotone)", () => {
    fc.assert(
      fc.property(
        arbRule,
        arbLatest,
        fc.constantFrom("likes" as const, "reposts" as const, "replies" as const, "views" as const),
        fc.nat(100),
        (rule, latest, metric, extra) => {
          if (thresholdsMet(rule, latest).met) expect(thresholdsMet(rule, { ...latest, [metric]: (latest[metric] ?? 0) + extra }).met).toBe(true);
        },
      ),
    );
  });

  it("plateau: at least `checks` collections, and none of the last `checks` above the one before", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 14 }), (checks, history) => {
        const res = plateaued(checks, history);
        if (history.length < checks) {
          expect(res.ok).toBe(false);
          return;
        }
        const last = history.slice(-checks);
        expect(res.ok).toBe(last.every((v, i) => i === 0 || v <= last[i - 1]));
        // One more collection that grew always breaks it; one that stayed keeps a plateau of one fewer check.
        expect(plateaued(checks, [...history, Math.max(...last) + 1]).ok).toBe(false);
        if (res.ok && checks > 2) expect(plateaued(checks - 1, [...history, last[last.length - 1]]).ok).toBe(true);
      }),
    );
    expect(plateaued(3, [1, 9, 9, 9]).ok).toBe(true);
    expect(plateaued(3, [9, 9, 10]).ok).toBe(false);
    expect(plateaued(3, [9, 9]).reason).toBe("plateau: 2 of 3 collections");
  });

  it("stage 0: never before delay_seconds + stages[0].delay_seconds, only once the post qualified, and never for a post that did not qualify within the window", () => {
    fc.assert(
      fc.property(arbRule, arbPost, fc.integer({ min: -HOUR, max: 60 * 24 * HOUR }), (rule, post, age) => {
        const d = decide(rule, post, [], at(post, age));
        const qualified = thresholdsMet(rule, post.latest).met && (!rule.require_plateau || plateaued(rule.plateau_checks, post.history).ok);
        if (!qualified) expect(d.kind).toBe(age > rule.evaluation_window_seconds ? "stop" : "wait");
        else expect(d.kind).toBe(age >= rule.delay_seconds + rule.stages[0].delay_seconds ? "repost" : "wait");
        if (d.kind === "repost") expect(d).toMatchObject({ stage: 0, unrepostPrevious: false });
      }),
    );
  });

  it("stage k follows stage k-1 only once it is done, after stages[k].delay_seconds, undoing it when stages[k] says so", () => {
    fc.assert(
      fc.property(
        arbRule,
        arbPost,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 12 * HOUR }),
        fc.constantFrom("queued" as const, "done" as const, "failed" as const),
        (rule, post, doneUpTo, since, lastStatus) => {
          const k = Math.min(doneUpTo, rule.stages.length - 1);
          const completedAt = at(post, HOUR);
          const stages: StageState[] = Array.from({ length: k + 1 }, (_, i) => ({
            stage: i,
            status: i === k ? lastStatus : "done",
            completedAtMs: i === k && lastStatus === "queued" ? null : completedAt,
          }));
          // Facts play no part once stage 0 is done: the post already qualified.
          const d = decide(rule, { ...post, latest: {} }, stages, completedAt + since * 1000);
          const expected = k + 1 >= rule.stages.length ? "stop" : lastStatus === "queued" ? "wait" : lastStatus === "failed" ? "stop" : undefined;
          if (expected) {
            expect(d.kind).toBe(expected);
            return;
          }
          expect(d.kind).toBe(since >= rule.stages[k + 1].delay_seconds ? "repost" : "wait");
          if (d.kind === "repost") expect(d).toMatchObject({ stage: k + 1, unrepostPrevious: rule.stages[k + 1].unrepost_previous });
        },
      ),
    );
  });

  it("no stage of a rule comes due past its horizon when every stage ran on time", () => {
    fc.assert(
      fc.property(arbRule, (rule) => {
        // The latest moment each stage can be due: qualified at the window's end, every stage done the moment it was due.
        let due = Math.max(rule.evaluation_window_seconds, rule.delay_seconds + rule.stages[0].delay_seconds);
        for (const s of rule.stages.slice(1)) due += s.delay_seconds;
        expect(due * 1000).toBeLessThan(horizonMs(rule));
      }),
    );
  });

  it("examples: reasons say what was compared", () => {
    const rule: RepostRuleData = {
      threshold_mode: "any",
      min_likes: 5,
      min_reposts: 3,
      min_comments: 0,
      min_views: 0,
      evaluation_window_seconds: 2 * HOUR,
      require_plateau: true,
      plateau_checks: 2,
      delay_seconds: 5 * MIN,
      stages: [
        { delay_seconds: 5 * MIN, unrepost_previous: true },
        { delay_seconds: 30 * MIN, unrepost_previous: true },
      ],
    };
    const post: PostFacts = { publishedAtMs: 0, latest: { likes: 6, reposts: 1 }, history: [7, 7] };
    expect(decide(rule, post, [], 5 * MIN * 1000)).toEqual({ kind: "wait", reason: "stage 0 due 10 min after publication" });
    expect(decide(rule, post, [], 15 * MIN * 1000)).toEqual({
      kind: "repost",
      stage: 0,
      unrepostPrevious: false,
      reason: "stage 0: any of: likes 6 ≥ 5, reposts 1 < 3; plateau: no growth over the last 2 collections",
    });
    expect(decide(rule, { ...post, history: [5, 7] }, [], 15 * MIN * 1000)).toMatchObject({ kind: "wait", reason: expect.stringContaining("still growing") });
    expect(decide(rule, { ...post, latest: { likes: 4 } }, [], 3 * HOUR * 1000)).toEqual({
      kind: "stop",
      reason: "did not qualify within 2 h: minimums not met (any of: likes 4 < 5, reposts unmeasured < 3)",
    });
    // Qualified within the window: still reposted once its delay is over, however late.
    expect(decide(rule, post, [], 3 * HOUR * 1000)).toMatchObject({ kind: "repost", stage: 0 });
    const done: StageState[] = [{ stage: 0, status: "done", completedAtMs: 15 * MIN * 1000 }];
    expect(decide(rule, post, done, 40 * MIN * 1000)).toEqual({ kind: "wait", reason: "stage 1 due 30 min after stage 0" });
    expect(decide(rule, post, done, 5 * HOUR * 1000)).toMatchObject({
      kind: "repost",
      stage: 1,
      unrepostPrevious: true,
      reason: "stage 1: 30 min after stage 0, undoing it first",
    });
    expect(decide(rule, post, [...done, { stage: 1, status: "done", completedAtMs: HOUR * 1000 }], 9 * HOUR * 1000)).toMatchObject({ kind: "stop" });
    expect([describeSeconds(0), describeSeconds(90), describeSeconds(120), describeSeconds(7200)]).toEqual(["0 s", "90 s", "2 min", "2 h"]);
  });
});
