import type { SupportIndex } from "./plan-claims";
import type { BuildInputValue, Claim, ModelDraft } from "./plan-types";
import { graphemeLength } from "../providers/text";
import { contentWords, hasDigit, splitSentences } from "./text";

/** The canonical text is at most this many graphemes: enough for the longest thread a profile allows. */
export const CANONICAL_BUDGET = 5_000;
const MAX_SCORE = 63;

export interface CanonicalSentence {
  text: string;
  /** Global paragraph number (unique across the idea and each source's paragraphs). */
  paragraph: number;
  score: number;
  /** The idea's own sentences (or a model's first one) lead every destination's text. */
  lead: boolean;
  claim: Claim;
}

export interface Canonical {
  sentences: CanonicalSentence[];
  /** Indexes into `sentences`, best first (lead sentences, then by score, ties in text order). */
  rank: number[];
  /** Sentences of publishable sources that did not fit the canonical text. */
  leftOut: number;
}

/**
 * Canonical text from the idea and the publishable sources (without a model): the idea's sentences
 * lead, followed by the source sentences that score best, kept in their original order, within
 * CANONICAL_BUDGET. A sentence scores for the idea's and the direction's words it shares (or, without
 * either, words the sources repeat), for opening its source, and for stating a figure. Scores are small
 * integers, so choosing the best is a counting sort: linear in the number of sentences.
 */
export function canonicalFromSources(input: BuildInputValue, index: SupportIndex): Canonical {
  const out: CanonicalSentence[] = [];
  let paragraph = 0;
  let budget = CANONICAL_BUDGET;
  const d = input.direction;
  if (input.idea) {
    let last = -1;
    for (const s of splitSentences(input.idea)) {
      if (s.paragraph !== last) paragraph++;
      last = s.paragraph;
      budget -= graphemeLength(s.text) + 1;
      out.push({ text: s.text, paragraph, score: MAX_SCORE, lead: true, claim: index.claim(s.text) });
    }
  }
  const focus = new Set(contentWords([input.idea, d.angle, d.audience, d.outcome].filter(Boolean).join(" ")));
  const candidates: { text: string; paragraph: number; score: number; source: string; length: number }[] = [];
  const frequency = new Map<string, number>();
  const bySentence: string[][] = [];
  const seen = new Set(out.map((s) => s.text.toLowerCase()));
  for (const source of input.sources) {
    if (!source.publishable || !source.text || source.kind === "media") continue;
    let last = -1;
    let first = true;
    for (const s of splitSentences(source.text)) {
      if (s.paragraph !== last) paragraph++;
      last = s.paragraph;
      // A sentence said already (by the idea or an earlier source) adds nothing the second time.
      const key = s.text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const words = [...new Set(contentWords(s.text))];
      if (focus.size === 0) for (const w of words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
      bySentence.push(words);
      candidates.push({ text: s.text, paragraph, score: (first ? 2 : 0) + (hasDigit(s.text) ? 1 : 0), source: source.id, length: graphemeLength(s.text) });
      first = false;
    }
  }
  const matters = focus.size > 0 ? (w: string) => focus.has(w) : (w: string) => (frequency.get(w) ?? 0) >= 3;
  candidates.forEach((c, i) => {
    let shared = 0;
    for (const w of bySentence[i]) if (matters(w)) shared++;
    c.score = Math.min(MAX_SCORE - 1, c.score + 3 * Math.min(shared, 15));
  });

  // Counting sort by score, best first, ties in text order.
  const buckets: number[][] = Array.from({ length: MAX_SCORE }, () => []);
  candidates.forEach((c, i) => buckets[c.score].push(i));
  const keep = new Uint8Array(candidates.length);
  let leftOut = 0;
  for (let score = MAX_SCORE - 1; score >= 0; score--) {
    for (const i of buckets[score]) {
      if (candidates[i].length + 1 <= budget) {
        keep[i] = 1;
        budget -= candidates[i].length + 1;
      } else leftOut++;
    }
  }
  candidates.forEach((c, i) => {
    if (keep[i]) out.push({ text: c.text, paragraph: c.paragraph, score: c.score, lead: false, claim: index.claim(c.text, c.source) });
  });
  return { sentences: out, rank: rankOf(out), leftOut };
}

/** Canonical text a model drafted: its sentences in its order, each checked against the sources. */
export function canonicalFromDraft(draft: ModelDraft, index: SupportIndex): Canonical {
  const out: CanonicalSentence[] = [];
  let budget = CANONICAL_BUDGET;
  let leftOut = 0;
  const sentences = splitSentences(draft.canonical_text);
  sentences.forEach((s, i) => {
    const length = graphemeLength(s.text);
    if (length + 1 > budget) {
      leftOut++;
      return;
    }
    budget -= length + 1;
    // The model's order is its argument: earlier sentences rank higher.
    out.push({ text: s.text, paragraph: s.paragraph, score: Math.max(0, MAX_SCORE - 1 - i), lead: i === 0, claim: index.claim(s.text) });
  });
  return { sentences: out, rank: rankOf(out), leftOut };
}

function rankOf(sentences: CanonicalSentence[]): number[] {
  const buckets: number[][] = Array.from({ length: MAX_SCORE + 1 }, () => []);
  sentences.forEach((s, i) => buckets[s.lead ? MAX_SCORE : Math.min(s.score, MAX_SCORE - 1)].push(i));
  return buckets.reverse().flat();
}
