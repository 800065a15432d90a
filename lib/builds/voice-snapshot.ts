import type { VoiceDefinitionValue } from "../../db/schema";
import type { VoiceSnapshot } from "./plan-types";

/**
 * A Voice Profile as a build records it (SPEC.md 2.6 destinations[].voice): the parts the planner
 * holds text to, copied so a later edit of the profile does not change what the build meant.
 */
export function voiceSnapshot(row: { id: string; name: string; revision: number; definition: VoiceDefinitionValue }): VoiceSnapshot {
  const d = row.definition;
  const guidance = [
    d.traits.length ? `Traits: ${d.traits.join(", ")}.` : "",
    d.formality ? `Formality: ${d.formality}.` : "",
    d.humor ? `Humour: ${d.humor}.` : "",
    d.boundaries.length ? `Boundaries: ${d.boundaries.join("; ")}.` : "",
    d.vocabulary.length ? `Vocabulary: ${d.vocabulary.join(", ")}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return {
    id: row.id,
    name: row.name,
    revision: row.revision,
    definition: {
      avoidances: [...d.forbidden_phrases, ...d.disliked_patterns],
      examples: d.examples.map((e) => ({ body: e.text, platform: e.platform })),
      guidance,
      identity: d.identity_summary,
      language: d.preferred_language,
    },
  };
}
