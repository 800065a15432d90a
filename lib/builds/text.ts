/**
 * Linear text scanning for the planner: sentences and content words. Each is one pass over the
 * characters with constant work per character (no regular expression that could backtrack), so the
 * cost of planning grows in step with the sources.
 */

export interface Sentence {
  text: string;
  /** Paragraph number within its text: sentences of one paragraph are joined with a space, paragraphs with a blank line. */
  paragraph: number;
}

const TERMINATORS = new Set([".", "!", "?", "…", "。", "！", "？"]);
/** Closers that may follow a terminator and still belong to the sentence: `He said "yes."` */
const CLOSERS = new Set(['"', "'", "”", "’", ")", "]", "»"]);
/** Terminators after which no space is written (CJK full stops). */
const WIDE_TERMINATORS = new Set(["。", "！", "？"]);

const isSpace = (ch: string) => ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f" || ch === "\v" || ch === "\u00a0" || ch === "\u3000";

/** Runs of whitespace become one space; ends trimmed. */
export function collapseSpaces(text: string): string {
  let out = "";
  let pendingSpace = false;
  for (const ch of text) {
    if (isSpace(ch)) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) out += " ";
    pendingSpace = false;
    out += ch;
  }
  return out;
}

/**
 * Sentences in order. A sentence ends at a terminator followed by whitespace (or a CJK full stop), or
 * at a line break; a blank line also starts a new paragraph. A dot inside a URL or a number is not
 * followed by whitespace, so `https://example.com/a.b` and `3.5` stay whole.
 */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  let paragraph = 0;
  let current = "";
  let newlines = 0;
  const flush = () => {
    const s = collapseSpaces(current);
    if (s) out.push({ text: s, paragraph });
    current = "";
  };
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === "\n") {
      newlines++;
      flush();
      continue;
    }
    if (isSpace(ch)) {
      current += ch;
      continue;
    }
    if (newlines >= 2 && out.length > 0 && out[out.length - 1].paragraph === paragraph) paragraph++;
    newlines = 0;
    current += ch;
    if (TERMINATORS.has(ch)) {
      let j = i + 1;
      while (j < chars.length && (TERMINATORS.has(chars[j]) || CLOSERS.has(chars[j]))) current += chars[j++];
      i = j - 1;
      if (WIDE_TERMINATORS.has(ch) || j >= chars.length || isSpace(chars[j])) flush();
    }
  }
  flush();
  return out;
}

/** Sentences joined back into text: a space within a paragraph, a blank line between paragraphs. */
export function joinSentences(sentences: readonly Sentence[]): string {
  let out = "";
  let last = -1;
  for (const s of sentences) {
    if (out) out += s.paragraph === last ? " " : "\n\n";
    out += s.text;
    last = s.paragraph;
  }
  return out;
}

const STOPWORDS = new Set(
  "this that with from have will your what when where which there their they them then than into about would could should been were also just more most some such only over very each other these those after before because while being does doing make made like much many here".split(
    " ",
  ),
);

const isWordChar = (ch: string) => /[\p{L}\p{N}]/u.test(ch);

/**
 * Lower-cased content words (letters and digits, at least four characters, or two in scripts written
 * without spaces; common function words left out), in order, repeats kept.
 */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  let word = "";
  let wide = false;
  const push = () => {
    if (word.length >= (wide ? 2 : 4) && !STOPWORDS.has(word)) out.push(word);
    word = "";
    wide = false;
  };
  for (const ch of text.toLowerCase()) {
    if (isWordChar(ch)) {
      word += ch;
      if (ch.charCodeAt(0) >= 0x2e80) wide = true;
    } else push();
  }
  push();
  return out;
}

/** Whether a sentence states a number (a date, an amount, a figure): such sentences carry facts. */
export function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** At most `max` graphemes of `text`, with an ellipsis when cut (an emoji or accent is never split). */
export function clipGraphemes(text: string, max: number): string {
  let out = "";
  let n = 0;
  for (const { segment } of graphemes.segment(text)) {
    if (n === max) return `${out.trimEnd()}…`;
    out += segment;
    n++;
  }
  return out;
}
