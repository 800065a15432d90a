/** CONTRACT.md §8's ranges for a RepostRule and a policy's or override's targets. */
export const RULE_LIMITS = {
  maxCount: 2_000_000_000,
  windowSeconds: { min: 3_600, max: 604_800 },
  plateauChecks: { min: 2, max: 12 },
  maxDelaySeconds: 2_592_000,
  stages: { min: 1, max: 5 },
  maxTargets: 20,
} as const;
