import type { SegmentToPublish } from "./types";

/** Text measuring shared by the adapters. Pure functions; Intl.Segmenter exists in Node and Workers. */

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const encoder = new TextEncoder();

/** User-perceived characters: 👍🏽 or a family emoji count as one. */
export function graphemeLength(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

export const utf8Length = (text: string) => encoder.encode(text).length;

/**
 * URLs in running text: http(s) followed by anything but whitespace, minus trailing punctuation that
 * usually ends a sentence rather than the URL (a closing bracket stays when the URL opened one).
 */
export function findUrls(text: string): { url: string; start: number; end: number }[] {
  const out: { url: string; start: number; end: number }[] = [];
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/gi)) {
    let url = match[0];
    while (/[.,;:!?'"]$/.test(url) || (url.endsWith(")") && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0))) {
      url = url.slice(0, -1);
    }
    if (/^https?:\/\/[^/?#]+/i.test(url)) out.push({ url, start: match.index!, end: match.index! + url.length });
  }
  return out;
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

/** A stable, URL-safe digest of `parts`, for idempotency keys and record keys. */
export async function digest(...parts: (string | number)[]): Promise<Uint8Array> {
  const data = encoder.encode(parts.map(String).join("\u0000"));
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

export const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Mastodon-style HTML content to plain text: paragraphs and <br> become newlines, tags go, entities decode. */
export function htmlToText(html: string): string {
  const withBreaks = html
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/p>\s*<p[^>]*>/gi, "\n\n")
    .replace(/<[^>]+>/g, "");
  return withBreaks
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&amp;/g, "&")
    .trim();
}
