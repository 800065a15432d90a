import { z } from "@hono/zod-openapi";
import { orNull } from "../../lib/schemas/common";

/** SPEC.md 2.6 Build.input: what the build was asked to plan. */

export const OutputProfile = z
  .object({
    key: z.string(),
    allowed_mimes: z.array(z.string()),
    max_segments: z.number().int(),
    media_max_count: z.number().int(),
    text_limit: z.number().int().openapi({ description: "Characters per segment" }),
  })
  .openapi("BuildOutputProfile");

export const BuildVoice = z
  .object({
    id: z.string(),
    name: z.string(),
    revision: z.number().int(),
    definition: z
      .object({
        avoidances: z.array(z.string()),
        examples: z.array(z.object({ body: z.string(), platform: z.string() }).openapi("BuildVoiceExample")),
        guidance: z.string(),
        identity: z.string(),
        language: z.string(),
      })
      .openapi("BuildVoiceDefinition"),
  })
  .openapi("BuildVoice", { description: "The Voice Profile snapshot the build used" });

export const BuildInputDestination = z
  .object({
    account_id: z.string(),
    label: z.string(),
    platform: z.string(),
    allowed_output_profiles: z.array(OutputProfile),
    voice: orNull(BuildVoice),
  })
  .openapi("BuildInputDestination");

export const BuildDirection = z
  .object({
    angle: z.string().nullable(),
    audience: z.string().nullable(),
    media_preference: z.string().nullable(),
    outcome: z.string().nullable(),
    tone_adjustment: z.string().nullable(),
  })
  .openapi("BuildDirection");

export const BuildInputSource = z
  .object({
    id: z.string(),
    kind: z.string(),
    label: z.string(),
    mime_type: z.string().nullable(),
    text: z.string().nullable(),
    publishable: z.boolean(),
  })
  .openapi("BuildInputSource");

export const BuildInput = z
  .object({
    destination_policy: z.string(),
    destinations: z.array(BuildInputDestination),
    direction: BuildDirection,
    idea: z.string().nullable(),
    sources: z.array(BuildInputSource),
  })
  .openapi("BuildInput");
