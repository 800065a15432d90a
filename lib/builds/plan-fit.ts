import { SegmentationError, splitIntoSegments, type Measure } from "../publishing/segment";

export type FitResult =
  | { ok: true; segments: string[]; shortened: boolean }
  /** A URL is longer than a whole segment: it can be neither cut nor posted. */
  | { ok: false; reason: string };

/**
 * Segments of `text` for one output profile: split by the publishing segmenter (paragraphs, then
 * sentences, then words; a URL never cut) and, when more than `maxSegments` come out, only the first
 * `maxSegments` kept and `shortened` set so the plan flags it. Empty text gives no segments.
 */
export function fitSegments(text: string, limit: number, maxSegments: number, measure: Measure): FitResult {
  if (text.trim() === "") return { ok: true, segments: [], shortened: false };
  let segments: string[];
  try {
    segments = splitIntoSegments(text, limit, measure);
  } catch (err) {
    if (err instanceof SegmentationError) return { ok: false, reason: err.message };
    throw err;
  }
  // The segmenter cuts an over-long word between graphemes; a URL glued to other text ("。https://…")
  // is counted whole by the platform (Mastodon: 23) even in pieces, so such a piece can still be over.
  // That text cannot be posted at this limit: say so rather than plan a segment the platform refuses.
  if (segments.some((s) => measure(s) > limit)) return { ok: false, reason: `A URL is longer than one segment (limit ${limit}) and cannot be split.` };
  if (segments.length <= maxSegments) return { ok: true, segments, shortened: false };
  return { ok: true, segments: segments.slice(0, Math.max(0, maxSegments)), shortened: true };
}
