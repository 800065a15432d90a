const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const splitGraphemes = (text: string) => Array.from(graphemes.segment(text), (s) => s.segment);

export type Measure = (text: string) => number;

export class SegmentationError extends Error {}

/** From the coarsest boundary to the finest: paragraphs, sentences, words. */
const LEVELS: { split: (text: string) => string[]; joiner: string }[] = [
  { split: (t) => t.split(/\n[ \t]*\n\s*/), joiner: "\n\n" },
  { split: (t) => t.split(/(?<=[.!?…])\s+/), joiner: " " },
  { split: (t) => t.split(/\s+/), joiner: " " },
];

const isUrl = (word: string) => /^\(?https?:\/\//i.test(word);

/**
 * Split text into segments that each measure at most `limit` (as the platform counts, e.g. URLs as
 * 23 on Mastodon). Paragraphs stay whole where they fit, then sentences, then words; a word is never
 * cut while it fits in a segment of its own, and a URL is never split (one longer than a whole segment
 * is an error). Only a single word longer than a segment is cut, between graphemes.
 */
export function splitIntoSegments(text: string, limit: number, measure: Measure): string[] {
  const source = text.trim();
  if (source === "" || measure(source) <= limit) return [source];
  return pack(source, 0, limit, measure);
}

function pack(text: string, level: number, limit: number, measure: Measure): string[] {
  if (level === LEVELS.length) return cutWord(text, limit, measure);
  const { split, joiner } = LEVELS[level];
  const segments: string[] = [];
  let current = "";
  for (const unit of split(text).filter((u) => u.trim() !== "")) {
    const candidate = current ? current + joiner + unit : unit;
    if (measure(candidate) <= limit) {
      current = candidate;
      continue;
    }
    if (current) segments.push(current);
    current = "";
    if (measure(unit) <= limit) {
      current = unit;
      continue;
    }
    // Too big on its own: split it at the next finer boundary; its last piece may take more text.
    const pieces = pack(unit, level + 1, limit, measure);
    segments.push(...pieces.slice(0, -1));
    current = pieces.at(-1) ?? "";
  }
  if (current) segments.push(current);
  return segments;
}

function cutWord(word: string, limit: number, measure: Measure): string[] {
  if (isUrl(word)) throw new SegmentationError(`A URL is longer than one segment (limit ${limit}) and cannot be split: ${word.slice(0, 80)}`);
  const pieces: string[] = [];
  let piece = "";
  for (const g of splitGraphemes(word)) {
    if (piece && measure(piece + g) > limit) {
      pieces.push(piece);
      piece = "";
    }
    piece += g;
  }
  if (piece) pieces.push(piece);
  return pieces;
}
