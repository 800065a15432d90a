/**
 * SPEC.md 2.2 VoiceDefinition as stored: every member present (missing ones are filled when a profile is
 * written, so readers never meet a partial definition).
 */
export interface VoiceDefinitionValue {
  boundaries: string[];
  disliked_patterns: string[];
  expertise: string[];
  forbidden_phrases: string[];
  opinions: string[];
  recurring_expressions: string[];
  traits: string[];
  vocabulary: string[];
  formality: string;
  humor: string;
  identity_summary: string;
  preferred_language: string;
  corrections: { lesson: string; original: string; preferred: string }[];
  examples: { platform: string; text: string; why_it_fits: string }[];
  interview_answers: { answer: string; question: string }[];
}

/** Current VoiceProfile.schema_version: the shape of VoiceDefinitionValue above. */
export const VOICE_SCHEMA_VERSION = 1;
