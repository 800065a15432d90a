import { z } from "@hono/zod-openapi";
import { RULE_LIMITS } from "../repost/limits";
import { IdParam, orNull } from "./common";

const ThresholdMode = z.enum(["all", "any"]).openapi({ description: "`all`: every minimum above 0 must be met; `any`: one is enough" });

/**
 * SPEC.md 2.5 RepostRule as answered: when a published post is reposted by other accounts. Shared by
 * publications (RepostOverride.rule) and repost automation (policies[].rule).
 */
export const RepostRule = z
  .object({
    threshold_mode: ThresholdMode,
    min_likes: z.number().int(),
    min_reposts: z.number().int(),
    min_comments: z.number().int(),
    min_views: z.number().int(),
    evaluation_window_seconds: z.number().int(),
    require_plateau: z.boolean(),
    plateau_checks: z.number().int(),
    delay_seconds: z.number().int(),
    stages: z.array(z.object({ delay_seconds: z.number().int(), unrepost_previous: z.boolean() }).openapi("RepostStage")),
  })
  .openapi("RepostRule");

const Minimum = z
  .number()
  .int()
  .min(0)
  .max(RULE_LIMITS.maxCount)
  .default(0)
  .openapi({ description: "0 or absent: not a condition. Counted from measurements collected from the platform (`native`), never imported ones" });
const Delay = z.number().int().min(0).max(RULE_LIMITS.maxDelaySeconds);

/** A RepostRule as a request gives it (CONTRACT.md §8): ranges checked, out of range → 422 naming `….rule.<field>`. */
export const RepostRuleInput = z
  .object({
    threshold_mode: ThresholdMode,
    min_likes: Minimum,
    min_reposts: Minimum,
    min_comments: Minimum,
    min_views: Minimum,
    evaluation_window_seconds: z
      .number()
      .int()
      .min(RULE_LIMITS.windowSeconds.min)
      .max(RULE_LIMITS.windowSeconds.max)
      .openapi({ description: "Only measurements collected this long after publication count; a post that has not qualified by then never will" }),
    require_plateau: z.boolean().default(false).openapi({ description: "Also wait until the counts stopped growing" }),
    plateau_checks: z
      .number()
      .int()
      .min(RULE_LIMITS.plateauChecks.min)
      .max(RULE_LIMITS.plateauChecks.max)
      .default(3)
      .openapi({ description: "With `require_plateau`: how many successive collections must show no growth" }),
    delay_seconds: Delay.default(0).openapi({ description: "The least time from publication to the first stage" }),
    stages: z
      .array(
        z
          .object({
            delay_seconds: Delay.openapi({ description: "Counted from the previous stage (the first: from `delay_seconds` after publication)" }),
            unrepost_previous: z.boolean().default(false).openapi({ description: "Undo the previous stage's repost first (ignored on the first stage)" }),
          })
          .strict()
          .openapi("RepostStageInput"),
      )
      .min(RULE_LIMITS.stages.min)
      .max(RULE_LIMITS.stages.max),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.min_likes + rule.min_reposts + rule.min_comments + rule.min_views === 0) {
      ctx.addIssue({ code: "custom", path: ["min_likes"], message: "At least one of min_likes, min_reposts, min_comments, min_views must be above 0" });
    }
  })
  .openapi("RepostRuleInput");

/** SPEC.md 2.5 RepostOverride as a request gives it: `custom` needs its own rule and targets; the others keep neither. */
export const RepostOverrideInput = z
  .object({
    mode: z
      .enum(["inherit", "custom", "off"])
      .openapi({ description: "`inherit`: the workspace's policies apply; `custom`: this rule and targets instead; `off`: never reposted" }),
    rule: orNull(RepostRuleInput).optional(),
    target_account_ids: z.array(IdParam).max(RULE_LIMITS.maxTargets).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.mode !== "custom") return;
    if (!o.rule) ctx.addIssue({ code: "custom", path: ["rule"], message: "Required with mode custom" });
    if (!o.target_account_ids?.length) ctx.addIssue({ code: "custom", path: ["target_account_ids"], message: "At least one target with mode custom" });
  })
  .openapi("RepostOverrideInput");
