import { z } from "@hono/zod-openapi";
import { knownValue } from "./common";

/**
 * SPEC.md 2.5 RepostRule: when a published post is reposted by other accounts. Shared by publications
 * (RepostOverride.rule) and repost automation (policies[].rule).
 */
export const RepostRule = z
  .object({
    delay_seconds: z.number().int(),
    evaluation_window_seconds: z.number().int(),
    min_comments: z.number().int(),
    min_likes: z.number().int(),
    min_reposts: z.number().int(),
    min_views: z.number().int(),
    plateau_checks: z.number().int(),
    require_plateau: z.boolean(),
    stages: z.array(z.object({ delay_seconds: z.number().int(), unrepost_previous: z.boolean() }).openapi("RepostStage")),
    threshold_mode: knownValue("all", "How the minimums combine"),
  })
  .openapi("RepostRule");
