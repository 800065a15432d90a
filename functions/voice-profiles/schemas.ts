import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { IdParam, RevisionField, Timestamp, WorkspaceIdField } from "../../lib/schemas/common";

/** Bounds of a VoiceDefinition: generous for real voices, small enough that a profile stays a few hundred KB at most. */
const Item = z.string().min(1).max(500);
const List = z.array(Item).max(100);
const Short = z.string().max(200);

const Correction = z.object({ lesson: z.string().max(2000), original: z.string().max(2000), preferred: z.string().max(2000) });
const Example = z.object({ platform: z.string().max(50), text: z.string().max(5000), why_it_fits: z.string().max(2000) });
const InterviewAnswer = z.object({ answer: z.string().max(5000), question: z.string().max(1000) });

const fields = {
  boundaries: List,
  disliked_patterns: List,
  expertise: List,
  forbidden_phrases: List,
  opinions: List,
  recurring_expressions: List,
  traits: List,
  vocabulary: List,
  formality: Short,
  humor: Short,
  identity_summary: z.string().max(4000),
  preferred_language: z.string().max(100),
  corrections: z.array(Correction.openapi("VoiceCorrection")).max(50),
  examples: z.array(Example.openapi("VoiceExample")).max(50),
  interview_answers: z.array(InterviewAnswer.openapi("VoiceInterviewAnswer")).max(50),
};

/** SPEC.md 2.2 VoiceDefinition: how a voice writes. Always complete in responses. */
export const VoiceDefinition = z.object(fields).openapi("VoiceDefinition");

const { corrections, examples, interview_answers, identity_summary, preferred_language } = fields;
const withDefaults = {
  boundaries: List.default([]),
  disliked_patterns: List.default([]),
  expertise: List.default([]),
  forbidden_phrases: List.default([]),
  opinions: List.default([]),
  recurring_expressions: List.default([]),
  traits: List.default([]),
  vocabulary: List.default([]),
  formality: Short.default(""),
  humor: Short.default(""),
  identity_summary: identity_summary.default(""),
  preferred_language: preferred_language.default(""),
  corrections: corrections.default([]),
  examples: examples.default([]),
  interview_answers: interview_answers.default([]),
};

/**
 * A VoiceDefinition as sent: members left out are empty (`[]` or `""`); unknown members are refused (422)
 * so a misspelt one is not silently dropped.
 */
export const VoiceDefinitionInput = z.strictObject(withDefaults).openapi("VoiceDefinitionInput");

export const VoiceName = z.string().trim().min(1).max(200);

/** Social accounts of the profile's workspace that write in this voice; an account has at most one voice. */
export const AssignedAccountIds = z
  .array(IdParam)
  .max(100)
  .openapi({ description: "Social account ids of the same workspace, each assigned to at most one profile" });

/** SPEC.md 2.2 VoiceProfile. */
export const VoiceProfile = responseObject("VoiceProfile", {
  id: z.string().openapi({ example: "vop_0123456789abcdefghijklmn" }),
  workspace_id: z.string(),
  name: z.string(),
  is_default: z.boolean().openapi({ description: "Whether this is the workspace default; exactly one profile of a workspace with profiles is" }),
  assigned_account_ids: z.array(z.string()),
  definition: VoiceDefinition,
  revision: z.number().int(),
  schema_version: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateVoiceProfileRequest = z
  .object({
    workspace_id: WorkspaceIdField,
    name: VoiceName,
    definition: VoiceDefinitionInput,
    assigned_account_ids: AssignedAccountIds.default([]),
  })
  .openapi("CreateVoiceProfileRequest");

export const ReplaceVoiceProfileRequest = z
  .object({
    expected_revision: RevisionField.openapi({ description: "The profile's revision as loaded" }),
    name: VoiceName,
    definition: VoiceDefinitionInput,
    assigned_account_ids: AssignedAccountIds,
  })
  .openapi("ReplaceVoiceProfileRequest");

export const VoiceProfileIdParams = z.object({ id: IdParam.openapi({ description: "Voice Profile ID" }) });
