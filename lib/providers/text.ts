import type { SegmentToPublish } from "./types";

/** Text measuring shared by the adapters. Pure functions, each linear in its input. */

const encoder = new TextEncoder();

export { graphemeLength } from "../text/graphemes";

export const utf8Length = (text: string) => encoder.encode(text).length;

/**
 * URLs in running text: http(s) followed by anything but whitespace, minus trailing punctuation that
 * usually ends a sentence rather than the URL (a closing bracket stays when the URL opened one).
 */
export function findUrls(text: string): { url: string; start: number; end: number }[] {
  const out: { url: string; start: number; end: number }[] = [];
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/gi)) {
    const url = match[0].slice(0, urlEnd(match[0]));
    if (/^https?:\/\/[^/?#]+/i.test(url)) out.push({ url, start: match.index!, end: match.index! + url.length });
  }
  return out;
}

/** Where a URL candidate really ends, in one backward pass (counting brackets once, not per character). */
function urlEnd(candidate: string): number {
  let open = 0;
  let close = 0;
  for (const ch of candidate) {
    if (ch === "(") open++;
    else if (ch === ")") close++;
  }
  let end = candidate.length;
  while (end > 0) {
    const ch = candidate[end - 1];
    if (`.,;:!?'"`.includes(ch)) end--;
    else if (ch === ")" && open < close) {
      end--;
      close--;
    } else break;
  }
  return end;
}

/** UTF-8 byte offset of a UTF-16 index (AT Protocol facets index bytes). */
export const byteOffset = (text: string, index: number) => utf8Length(text.slice(0, index));

/**
 * The text one segment is posted as on platforms without titles (Bluesky, Mastodon): the body, with
 * the segment's URL appended on a line of its own when the body does not already contain it. Titles
 * are not posted there (the webhook carries them). Adapters measure and post exactly this text.
 */
export function segmentText(segment: Pick<SegmentToPublish, "body" | "url">): string {
  const body = segment.body.trim();
  if (!segment.url || body.includes(segment.url)) return body;
  return body ? `${body}\n\n${segment.url}` : segment.url;
}

/** Between a rendition's segments where a platform without threads posts them as one text (LinkedIn, Meta, video captions). */
export const SEGMENT_JOINER = "\n\n";

/** The one post a rendition becomes on such a platform: each segment as posted elsewhere (body and URL), joined in order. */
export function joinedText(segments: Pick<SegmentToPublish, "position" | "body" | "url">[]): string {
  return [...segments]
    .sort((a, b) => a.position - b.position)
    .map((s) => segmentText(s))
    .filter((t) => t !== "")
    .join(SEGMENT_JOINER);
}

/** A stable, URL-safe digest of `parts`, for idempotency keys and record keys. */
export async function digest(...parts: (string | number)[]): Promise<Uint8Array> {
  const data = encoder.encode(parts.map(String).join("\u0000"));
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

export const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Mastodon-style HTML content to plain text: paragraphs and <br> become newlines, tags go, entities decode.
 * One forward scan (regular expressions over hostile HTML, such as "<" repeated, backtrack quadratically).
 */
export function htmlToText(html: string): string {
  let out = "";
  let i = 0;
  let tagsLeft = true; // once a "<" has no ">" after it, no later one has either
  let semicolon = -2; // the next ";" at or after i (-1: none left), found once and reused
  while (i < html.length) {
    const ch = html[i];
    if (ch === "<" && tagsLeft) {
      const close = html.indexOf(">", i + 1);
      if (close === -1) tagsLeft = false;
      else if (close > i + 1) {
        const tag = html.slice(i + 1, close).toLowerCase();
        i = close + 1;
        if (/^br\s*\/?$/.test(tag)) out += "\n";
        else if (tag === "/p") i = paragraphBreak(html, i, (text) => (out += text));
        continue;
      }
    } else if (ch === "&") {
      if (semicolon !== -1 && semicolon <= i) semicolon = html.indexOf(";", i + 1);
      const end = semicolon;
      const decoded = end !== -1 && end - i <= 10 ? decodeEntity(html.slice(i + 1, end)) : undefined;
      if (decoded !== undefined) {
        out += decoded;
        i = end + 1;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out.trim();
}

/** After "</p>": whitespace and a "<p…>" make a blank line; returns where to go on. */
function paragraphBreak(html: string, from: number, emit: (text: string) => void): number {
  let j = from;
  while (j < html.length && /\s/.test(html[j])) j++;
  if (html.slice(j, j + 2).toLowerCase() !== "<p") return from;
  const close = html.indexOf(">", j + 2);
  if (close === -1) return from;
  emit("\n\n");
  return close + 1;
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&", "#39": "'" };

function decodeEntity(name: string): string | undefined {
  if (NAMED[name]) return NAMED[name];
  const code = /^#\d{1,7}$/.test(name) ? Number(name.slice(1)) : /^#x[0-9a-f]{1,6}$/i.test(name) ? parseInt(name.slice(2), 16) : NaN;
  return code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
