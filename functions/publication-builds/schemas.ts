import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { orNull, Timestamp } from "../../lib/schemas/common";
import { BuildInput } from "./build-input";
import { BuildResult } from "./build-result";

/** CONTRACT.md §5: a build goes queued → running → completed | failed. */
export const BuildState = z.enum(["queued", "running", "completed", "failed"]);

/** SPEC.md 2.6 Build. */
export const Build = responseObject("Build", {
  id: z.string().openapi({ example: "bld_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  revision: z.number().int(),
  state: BuildState,
  phase: z.string().openapi({ description: "Finer-grained progress within the state" }),
  publication_id: z.string().nullable(),
  social_set_id: z.string().nullable(),
  voice_profile_id: z.string().nullable(),
  assets: z.array(z.object({ media_id: z.string(), role: z.string(), may_publish: z.boolean() }).openapi("BuildAsset")),
  context_urls: z.array(z.string()),
  input: BuildInput,
  result: orNull(BuildResult).openapi({ description: "Null until the build completes" }),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** SPEC.md 2.12: an idea card. */
export const Opportunity = z
  .object({
    id: z.string(),
    title: z.string(),
    hook: z.string(),
    why_it_fits: z.string(),
    why_now: z.string(),
    signal_date: z.string().nullable().openapi({ description: "Date of the signal that makes this timely" }),
    angles: z.array(z.object({ id: z.string(), label: z.string(), approach: z.string(), thesis: z.string() }).openapi("OpportunityAngle")),
    platform_treatments: z.array(
      z.object({ platform: z.string(), format: z.string(), media: z.string(), objective: z.string(), rationale: z.string() }).openapi("PlatformTreatment"),
    ),
  })
  .openapi("Opportunity");

/** SPEC.md 2.12 DiscoveryResult. */
export const DiscoveryResult = responseObject("DiscoveryResult", {
  generated_at: Timestamp,
  model: z.string().openapi({ description: "The model that generated the ideas" }),
  opportunities: z.array(Opportunity),
});
