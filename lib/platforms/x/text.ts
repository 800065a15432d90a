import { graphemes } from "../../text/graphemes";
import { findUrls } from "../../providers/text";

/**
 * How X counts a post's length (twitter-text's v3 configuration, which the X API applies): the text is
 * NFC-normalised and every code point weighs 2, except those in the Latin, Greek, Cyrillic, Armenian,
 * Hebrew, Arabic… block range U+0000–U+10FF and a few punctuation ranges, which weigh 1. An emoji (a whole
 * grapheme, however many code points it joins) weighs 2, and every URL weighs 23 whatever its length.
 * Pure and linear in the text.
 */

export const X_TEXT_LIMIT = 280;
export const X_URL_WEIGHT = 23;

/** Code point ranges that weigh 1 (twitter-text config v3 `ranges`). */
const LIGHT: [number, number][] = [
  [0x0000, 0x10ff],
  [0x2000, 0x200d],
  [0x2010, 0x201f],
  [0x2032, 0x2037],
];

const pictographic = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

const codePointWeight = (cp: number) => (LIGHT.some(([lo, hi]) => cp >= lo && cp <= hi) ? 1 : 2);

/**
 * Bare domains X links without a scheme (twitter-text knows every TLD; these are the common ones, so a
 * bare `example.com` counts as a 23-character link as X counts it rather than as its own length).
 */
const BARE_DOMAIN =
  /(?<![\w@./-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|net|org|io|co|dev|app|ai|me|info|biz|edu|gov|uk|de|fr|jp|us|ca|eu|ly|tv|xyz|social|blog|news)(?![\w-])(?:\/[^\s<>"]*[^\s<>".,;:!?'")])?/giu;

function textWeight(text: string): number {
  let weight = 0;
  for (const grapheme of graphemes(text)) {
    if (pictographic.test(grapheme)) {
      weight += 2;
      continue;
    }
    for (const ch of grapheme) weight += codePointWeight(ch.codePointAt(0)!);
  }
  return weight;
}

/** Where links are in the text: scheme URLs first, then bare domains outside them. */
function links(text: string): { start: number; end: number }[] {
  const found = findUrls(text).map(({ start, end }) => ({ start, end }));
  for (const m of text.matchAll(BARE_DOMAIN)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (!found.some((f) => start < f.end && end > f.start)) found.push({ start, end });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The weighted length of a post as X counts it (the limit is 280). */
export function xWeightedLength(input: string): number {
  const text = input.normalize("NFC");
  let weight = 0;
  let last = 0;
  for (const { start, end } of links(text)) {
    weight += textWeight(text.slice(last, start)) + X_URL_WEIGHT;
    last = end;
  }
  return weight + textWeight(text.slice(last));
}
