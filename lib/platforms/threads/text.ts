import { graphemes } from "../../text/graphemes";
import { utf8Length } from "../../providers/text";

/**
 * How Threads counts a post: 500 characters, "emojis are counted as the number of UTF-8 bytes" (Threads API,
 * Posts: Limitations). So a character weighs 1 and an emoji (a whole grapheme) as many as its UTF-8 bytes,
 * e.g. 👍 weighs 4 and 👍🏽 weighs 8. Pure and linear in the text.
 */

export const THREADS_TEXT_LIMIT = 500;

const pictographic = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function threadsLength(text: string): number {
  let n = 0;
  for (const g of graphemes(text)) n += pictographic.test(g) ? utf8Length(g) : 1;
  return n;
}
