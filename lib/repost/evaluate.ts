import type { RepostMetric, RepostPolicyRule } from "../../db/schema/repost";

/**
 * Whether one published post should now be reposted by one target account under a policy's rule
 * (CONTRACT.md §8 RepostRule). Plain computation: the evaluator gathers the facts, this decides.
 *
 * - Stage 0 is due `stages[0].delay_minutes` after publication, only while the post is within
 *   `window_hours` of publication, once the thresholds hold (`match` all/any; no thresholds: always) and,
 *   with `plateau`, once engagement grew by at most `max_growth_percent` over the last `checks` measurements.
 * - Stage k ≥ 1 is due `stages[k].delay_minutes` after stage k-1 was done; it undoes stage k-1 first when
 *   `unrepost_previous` is set. Thresholds are not asked again: the post already qualified.
 */

export interface PostFacts {
  publishedAtMs: number;
  /** Latest stored value per metric; a metric never measured is absent (and never meets a threshold). */
  latest: Partial<Record<string, number>>;
  /** Engagement totals at successive collections, oldest first (only the last `plateau.checks` matter). */
  engagementHistory: number[];
}

export interface StageState {
  stage: number;
  status: "queued" | "done" | "failed";
  completedAtMs: number | null;
}

export type Decision =
  | { kind: "wait"; reason: string }
  | { kind: "stop"; reason: string }
  | { kind: "repost"; stage: number; unrepostPrevious: boolean; reason: string };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Engagement actions summed over those that were measured; absent when none was. */
export function engagementOf(latest: Partial<Record<string, number>>): number | undefined {
  const parts = (["likes", "reposts", "replies"] as const).map((m) => latest[m]).filter((v): v is number => typeof v === "number");
  return parts.length ? parts.reduce((a, b) => a + b, 0) : undefined;
}

export const metricValue = (latest: Partial<Record<string, number>>, metric: RepostMetric): number | undefined =>
  metric === "engagement" ? (latest.engagement ?? engagementOf(latest)) : latest[metric];

/** The thresholds against the latest values, with a reason naming each value against its minimum. */
export function thresholdsMet(rule: Pick<RepostPolicyRule, "match" | "thresholds">, latest: Partial<Record<string, number>>): { met: boolean; reason: string } {
  if (rule.thresholds.length === 0) return { met: true, reason: "no thresholds" };
  const checks = rule.thresholds.map((t) => {
    const value = metricValue(latest, t.metric);
    return {
      ok: value !== undefined && value >= t.min,
      text: `${t.metric} ${value ?? "unmeasured"} ${value !== undefined && value >= t.min ? "≥" : "<"} ${t.min}`,
    };
  });
  const met = rule.match === "all" ? checks.every((c) => c.ok) : checks.some((c) => c.ok);
  return { met, reason: `${rule.match === "all" ? "all of" : "any of"}: ${checks.map((c) => c.text).join(", ")}` };
}

/** Growth in percent from `first` to `last` (from zero: 0 when still zero, else unbounded). */
export function growthPercent(first: number, last: number): number {
  if (first <= 0) return last <= first ? 0 : Infinity;
  return ((last - first) / first) * 100;
}

/** Engagement levelled off: enough measurements, and growth across the last `checks` within the limit. */
export function plateaued(plateau: NonNullable<RepostPolicyRule["plateau"]>, history: number[]): { ok: boolean; reason: string } {
  if (history.length < plateau.checks) return { ok: false, reason: `plateau: ${history.length} of ${plateau.checks} measurements` };
  const window = history.slice(-plateau.checks);
  const growth = growthPercent(window[0], window[window.length - 1]);
  const shown = Number.isFinite(growth) ? `${Math.round(growth * 10) / 10}%` : "from zero";
  return growth <= plateau.max_growth_percent
    ? { ok: true, reason: `plateau: grew ${shown} over ${plateau.checks} measurements (≤ ${plateau.max_growth_percent}%)` }
    : { ok: false, reason: `plateau: still growing, ${shown} over ${plateau.checks} measurements` };
}

/** The next step for one (post, target) given the stages already queued or done for it. */
export function decide(rule: RepostPolicyRule, post: PostFacts, stages: StageState[], nowMs: number): Decision {
  const next = stages.reduce((n, s) => Math.max(n, s.stage + 1), 0);
  if (next >= rule.stages.length) return { kind: "stop", reason: "every stage done" };
  if (next > 0) {
    const previous = stages.find((s) => s.stage === next - 1);
    if (!previous || previous.status === "queued" || previous.completedAtMs === null) return { kind: "wait", reason: `stage ${next - 1} not done yet` };
    if (previous.status === "failed") return { kind: "stop", reason: `stage ${next - 1} failed` };
    const delay = rule.stages[next].delay_minutes;
    if (nowMs < previous.completedAtMs + delay * MINUTE) return { kind: "wait", reason: `stage ${next} due ${delay} min after stage ${next - 1}` };
    return {
      kind: "repost",
      stage: next,
      unrepostPrevious: rule.unrepost_previous,
      reason: `stage ${next}: ${delay} min after stage ${next - 1}${rule.unrepost_previous ? ", undoing it first" : ""}`,
    };
  }
  const age = nowMs - post.publishedAtMs;
  if (age > rule.window_hours * HOUR) return { kind: "stop", reason: `published more than ${rule.window_hours} h ago` };
  const delay = rule.stages[0].delay_minutes;
  if (age < delay * MINUTE) return { kind: "wait", reason: `stage 0 due ${delay} min after publication` };
  const thresholds = thresholdsMet(rule, post.latest);
  if (!thresholds.met) return { kind: "wait", reason: `thresholds not met (${thresholds.reason})` };
  let reason = `stage 0: ${thresholds.reason}`;
  if (rule.plateau) {
    const plateau = plateaued(rule.plateau, post.engagementHistory);
    if (!plateau.ok) return { kind: "wait", reason: plateau.reason };
    reason += `; ${plateau.reason}`;
  }
  return { kind: "repost", stage: 0, unrepostPrevious: false, reason };
}
