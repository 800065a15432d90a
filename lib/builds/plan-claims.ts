import type { Claim } from "./plan-types";
import { contentWords } from "./text";

/**
 * Which sources a sentence rests on. A sentence is supported by a source when most of its content
 * words (at least SUPPORT_SHARE of them, and at least one) occur in that source. Word overlap is a
 * deliberately plain test: it cannot confirm a claim, only show that a source speaks about the same
 * things, so an unsupported sentence is flagged for a person to check rather than dropped.
 */

const SUPPORT_SHARE = 0.6;

export class SupportIndex {
  /** content word → indexes of the sources containing it (each index once, ascending). */
  private readonly words = new Map<string, number[]>();

  constructor(private readonly sources: readonly { id: string; text: string | null }[]) {
    sources.forEach((source, index) => {
      if (!source.text) return;
      for (const word of contentWords(source.text)) {
        const list = this.words.get(word);
        if (!list) this.words.set(word, [index]);
        else if (list[list.length - 1] !== index) list.push(index);
      }
    });
  }

  /** Ids of the sources supporting `sentence`, in source order. */
  supportOf(sentence: string): string[] {
    const words = [...new Set(contentWords(sentence))];
    if (words.length === 0) return [];
    const hits = new Array<number>(this.sources.length).fill(0);
    for (const word of words) for (const index of this.words.get(word) ?? []) hits[index]++;
    const needed = Math.max(1, Math.ceil(words.length * SUPPORT_SHARE));
    return this.sources.flatMap((s, i) => (hits[i] >= needed ? [s.id] : []));
  }

  /** A claim for a sentence: its known source when it was taken from one, else whatever supports it. */
  claim(sentence: string, knownSource: string | null = null): Claim {
    const refs = knownSource ? [knownSource] : this.supportOf(sentence);
    return { text: sentence, status: refs.length > 0 ? "supported" : "unsupported", source_refs: refs };
  }
}
