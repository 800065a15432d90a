/**
 * The JSON a repost rule is stored as (repost_policies.rule, publications.repost_override): types only, so
 * both tables can name them without importing each other.
 */

/** A stage of a rule: how long after the previous one, and whether it undoes the previous one's repost first. */
export interface RepostStageData {
  delay_seconds: number;
  unrepost_previous: boolean;
}

/**
 * The stored form of a rule: SPEC.md 2.5 RepostRule exactly (CONTRACT.md §8; validated and bounded at the
 * API). Migration 0027 converted the policies written in the earlier `match/thresholds/window_hours` shape.
 */
export interface RepostRuleData {
  threshold_mode: "all" | "any";
  min_likes: number;
  min_reposts: number;
  min_comments: number;
  min_views: number;
  evaluation_window_seconds: number;
  require_plateau: boolean;
  plateau_checks: number;
  delay_seconds: number;
  stages: RepostStageData[];
}

/** SPEC.md 2.5 RepostOverride as stored on a publication (`repost_override`; null: inherit). */
export interface RepostOverrideData {
  mode: "inherit" | "custom" | "off";
  rule: RepostRuleData | null;
  target_account_ids: string[];
}
