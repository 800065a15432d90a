import { graphemes } from "../text/graphemes";

/**
 * How a platform counts a text. Every measure we use counts whitespace-separated pieces independently
 * (graphemes, URLs as a fixed weight, mentions without their domain), so the measure of `a + " " + b`
 * never exceeds measure(a) + measure(" ") + measure(b). The packer relies on that to stay linear.
 */
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
 *
 * Linear in the text: each unit is measured once per level and a growing segment's size is kept as a
 * running sum instead of being measured again (that made a 40,000-character word take seconds).
 */
export function splitIntoSegments(text: string, limit: number, measure: Measure): string[] {
  const source = text.trim();
  if (source === "" || measure(source) <= limit) return [source];
  return pack(source, 0, limit, measure).flatMap((segment) => (measure(segment) <= limit ? [segment] : exactPack(segment, limit, measure)));
}

function pack(text: string, level: number, limit: number, measure: Measure): string[] {
  if (level === LEVELS.length) return cutWord(text, limit, measure);
  const { split, joiner } = LEVELS[level];
  const joinerSize = measure(joiner);
  const segments: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length) segments.push(current.join(joiner));
    current = [];
    size = 0;
  };
  for (const unit of split(text)) {
    if (unit.trim() === "") continue;
    const unitSize = measure(unit);
    const grown = current.length ? size + joinerSize + unitSize : unitSize;
    if (grown <= limit) {
      current.push(unit);
      size = grown;
      continue;
    }
    flush();
    if (unitSize <= limit) {
      current.push(unit);
      size = unitSize;
      continue;
    }
    // Too big on its own: split it at the next finer boundary; its last piece may take more text.
    const pieces = pack(unit, level + 1, limit, measure);
    segments.push(...pieces.slice(0, -1));
    const last = pieces.at(-1);
    if (last) {
      current.push(last);
      size = measure(last);
    }
  }
  flush();
  return segments;
}

function cutWord(word: string, limit: number, measure: Measure): string[] {
  if (isUrl(word)) throw new SegmentationError(`A URL is longer than one segment (limit ${limit}) and cannot be split: ${word.slice(0, 80)}`);
  const pieces: string[] = [];
  let piece = "";
  let size = 0;
  const sizes = new Map<string, number>(); // a word repeats few distinct graphemes; measure each once
  for (const g of graphemes(word)) {
    let gSize = sizes.get(g);
    if (gSize === undefined) sizes.set(g, (gSize = measure(g)));
    if (piece && size + gSize > limit) {
      pieces.push(piece);
      piece = "";
      size = 0;
    }
    piece += g;
    size += gSize;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/**
 * Safety net for a measure that is not additive after all: re-split one segment word by word, measuring
 * each candidate exactly. Only ever runs on text of about one segment, so its cost stays bounded.
 */
function exactPack(segment: string, limit: number, measure: Measure): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of segment.split(/\s+/)) {
    if (word === "") continue;
    const candidate = current ? `${current} ${word}` : word;
    if (measure(candidate) <= limit) current = candidate;
    else {
      if (current) out.push(current);
      current = measure(word) <= limit ? word : "";
      if (!current) out.push(...cutWord(word, limit, measure));
    }
  }
  if (current) out.push(current);
  return out;
}
