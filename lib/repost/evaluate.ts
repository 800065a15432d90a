import type { RepostRuleData } from "../../db/schema/repost";

/**
 * Whether one published post should now be reposted by one target account under a rule (SPEC.md 2.5
 * RepostRule, CONTRACT.md §8). Plain computation: the evaluator gathers the facts, this decides.
 *
 * - The post qualifies when its minimums hold (`threshold_mode` all/any over the minimums above 0) and, with
 *   `require_plateau`, its counts did not grow over the last `plateau_checks` collections, all judged on
 *   native measurements collected within `evaluation_window_seconds` of publication. Past the window
 *   without qualifying, it never will.
 * - Stage 0 is due `delay_seconds + stages[0].delay_seconds` after publication, once the post qualified.
 * - Stage k ≥ 1 is due `stages[k].delay_seconds` after stage k-1 was done; it undoes stage k-1 first when
 *   `stages[k].unrepost_previous`. The minimums are not asked again: the post already qualified.
 */

export type RuleMetric = "likes" | "reposts" | "replies" | "views";

/** Each minimum of the rule, the stored metric it is compared with, and its name in reasons. */
export const RULE_METRICS = [
  { field: "min_likes", metric: "likes", name: "likes" },
  { field: "min_reposts", metric: "reposts", name: "reposts" },
  { field: "min_comments", metric: "replies", name: "comments" },
  { field: "min_views", metric: "views", name: "views" },
] as const;

export interface PostFacts {
  publishedAtMs: number;
  /** Latest native value per metric collected within the window; a metric never measured is absent (and never meets a minimum). */
  latest: Partial<Record<RuleMetric, number>>;
  /** Totals of the four metrics at successive native collections within the window, oldest first (the last `plateau_checks` matter). */
  history: number[];
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

const DAY_MS = 86_400_000;

/** `90` → "90 s", `3600` → "1 h", `120` → "2 min". */
export function describeSeconds(seconds: number): string {
  if (seconds > 0 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The minimums against the latest values, with a reason naming each value against its minimum. */
export function thresholdsMet(rule: Pick<RepostRuleData, "threshold_mode" | RuleField>, latest: PostFacts["latest"]): { met: boolean; reason: string } {
  const checks = RULE_METRICS.filter((m) => rule[m.field] > 0).map((m) => {
    const value = latest[m.metric];
    const ok = value !== undefined && value >= rule[m.field];
    return { ok, text: `${m.name} ${value ?? "unmeasured"} ${ok ? "≥" : "<"} ${rule[m.field]}` };
  });
  // Stored rules converted from the old shape may have no minimum: as before, every post qualifies.
  if (checks.length === 0) return { met: true, reason: "no minimums" };
  const met = rule.threshold_mode === "all" ? checks.every((c) => c.ok) : checks.some((c) => c.ok);
  return { met, reason: `${rule.threshold_mode === "all" ? "all of" : "any of"}: ${checks.map((c) => c.text).join(", ")}` };
}

type RuleField = (typeof RULE_METRICS)[number]["field"];

/** The counts levelled off: at least `checks` collections, and none of the last `checks` higher than the one before. */
export function plateaued(checks: number, history: number[]): { ok: boolean; reason: string } {
  if (history.length < checks) return { ok: false, reason: `plateau: ${history.length} of ${checks} collections` };
  const window = history.slice(-checks);
  const grew = window.some((v, i) => i > 0 && v > window[i - 1]);
  return grew
    ? { ok: false, reason: `plateau: still growing over the last ${checks} collections (${window.join(" → ")})` }
    : { ok: true, reason: `plateau: no growth over the last ${checks} collections` };
}

/** After this long from publication no stage of the rule can still come due (a day's slack for late stages). */
export function horizonMs(rule: Pick<RepostRuleData, "evaluation_window_seconds" | "delay_seconds" | "stages">): number {
  const seconds = rule.evaluation_window_seconds + rule.delay_seconds + rule.stages.reduce((s, st) => s + st.delay_seconds, 0);
  return seconds * 1000 + DAY_MS;
}

/** The next step for one (post, target) given the stages already queued or done for it. */
export function decide(rule: RepostRuleData, post: PostFacts, stages: StageState[], nowMs: number): Decision {
  const next = stages.reduce((n, s) => Math.max(n, s.stage + 1), 0);
  if (next >= rule.stages.length) return { kind: "stop", reason: "every stage done" };
  if (next > 0) {
    const previous = stages.find((s) => s.stage === next - 1);
    if (!previous || previous.status === "queued" || previous.completedAtMs === null) return { kind: "wait", reason: `stage ${next - 1} not done yet` };
    if (previous.status === "failed") return { kind: "stop", reason: `stage ${next - 1} failed` };
    const { delay_seconds: delay, unrepost_previous: undo } = rule.stages[next];
    if (nowMs < previous.completedAtMs + delay * 1000) return { kind: "wait", reason: `stage ${next} due ${describeSeconds(delay)} after stage ${next - 1}` };
    return {
      kind: "repost",
      stage: next,
      unrepostPrevious: undo,
      reason: `stage ${next}: ${describeSeconds(delay)} after stage ${next - 1}${undo ? ", undoing it first" : ""}`,
    };
  }
  const thresholds = thresholdsMet(rule, post.latest);
  const plateau = rule.require_plateau ? plateaued(rule.plateau_checks, post.history) : null;
  const windowEnd = post.publishedAtMs + rule.evaluation_window_seconds * 1000;
  if (!thresholds.met || (plateau && !plateau.ok)) {
    const why = thresholds.met ? plateau!.reason : `minimums not met (${thresholds.reason})`;
    // The facts only hold measurements from within the window: past it, nothing can change them.
    return nowMs > windowEnd
      ? { kind: "stop", reason: `did not qualify within ${describeSeconds(rule.evaluation_window_seconds)}: ${why}` }
      : { kind: "wait", reason: why };
  }
  const delay = rule.delay_seconds + rule.stages[0].delay_seconds;
  if (nowMs < post.publishedAtMs + delay * 1000) return { kind: "wait", reason: `stage 0 due ${describeSeconds(delay)} after publication` };
  return { kind: "repost", stage: 0, unrepostPrevious: false, reason: `stage 0: ${thresholds.reason}${plateau ? `; ${plateau.reason}` : ""}` };
}
