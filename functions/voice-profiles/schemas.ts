import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { Timestamp } from "../../lib/schemas/common";

const Strings = z.array(z.string());

/** SPEC.md 2.2 VoiceDefinition: how a voice writes. */
export const VoiceDefinition = z
  .object({
    boundaries: Strings,
    disliked_patterns: Strings,
    expertise: Strings,
    forbidden_phrases: Strings,
    opinions: Strings,
    recurring_expressions: Strings,
    traits: Strings,
    vocabulary: Strings,
    formality: z.string(),
    humor: z.string(),
    identity_summary: z.string(),
    preferred_language: z.string(),
    corrections: z.array(z.object({ lesson: z.string(), original: z.string(), preferred: z.string() }).openapi("VoiceCorrection")),
    examples: z.array(z.object({ platform: z.string(), text: z.string(), why_it_fits: z.string() }).openapi("VoiceExample")),
    interview_answers: z.array(z.object({ answer: z.string(), question: z.string() }).openapi("VoiceInterviewAnswer")),
  })
  .openapi("VoiceDefinition");

/** SPEC.md 2.2 VoiceProfile. */
export const VoiceProfile = responseObject("VoiceProfile", {
  id: z.string().openapi({ example: "vop_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  name: z.string(),
  is_default: z.boolean().openapi({ description: "Whether this is the workspace default; at most one is" }),
  assigned_account_ids: z.array(z.string()),
  definition: VoiceDefinition,
  revision: z.number().int(),
  schema_version: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
