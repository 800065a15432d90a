import { z } from "@hono/zod-openapi";

/** SPEC.md 2.6 Build.result: the generated publication plan. */

export const BuildClaim = z
  .object({
    text: z.string(),
    status: z.string(),
    source_refs: z.array(z.string()).openapi({ description: "Ids of the sources supporting the claim" }),
  })
  .openapi("BuildClaim");

export const BuildMedia = z.object({ brief: z.string(), role: z.string(), source_ref: z.string().nullable(), treatment: z.string() }).openapi("BuildMedia");

export const BuildResultDestination = z
  .object({
    account_id: z.string(),
    platform: z.string(),
    archetype: z.string(),
    objective: z.string(),
    output_profile: z.string(),
    preview: z.string(),
    claims: z.array(BuildClaim),
    follow_up_notes: z.array(z.string()),
    media: z.array(BuildMedia),
    segments: z.array(z.object({ title: z.string().nullable(), body: z.string(), description: z.string().nullable() }).openapi("BuildSegment")),
    warnings: z.array(z.string()),
  })
  .openapi("BuildResultDestination");

export const BuildResultDirection = z
  .object({
    angle: z.string(),
    audience: z.string(),
    canonical_text: z.string(),
    outcome: z.string(),
    route: z.string(),
    thesis: z.string(),
    claims: z.array(BuildClaim),
    factual_kernel: z.array(z.string()),
    media: z.array(BuildMedia),
    destinations: z.array(z.object({ account_id: z.string(), include: z.boolean(), reason: z.string() }).openapi("BuildDestinationChoice")),
  })
  .openapi("BuildResultDirection");

export const BuildResult = z
  .object({
    canonical_text: z.string(),
    destinations: z.array(BuildResultDestination),
    direction: BuildResultDirection,
    review_flags: z.array(z.object({ account_id: z.string(), field: z.string(), message: z.string(), severity: z.string() }).openapi("BuildReviewFlag")),
    skipped: z.array(z.object({ account_id: z.string(), platform: z.string(), reason: z.string() }).openapi("BuildSkippedDestination")),
    sources: z.array(z.object({ id: z.string(), kind: z.string(), label: z.string(), publishable: z.boolean() }).openapi("BuildResultSource")),
  })
  .openapi("BuildResult");
