import { readTextCapped } from "../net/read-capped";
import { providerFetch } from "../providers/http";
import { ProviderError } from "../providers/types";

/** A page larger than this is not read (a review flag says so). */
export const SOURCE_MAX_BYTES = 2 * 1024 * 1024;
export const SOURCE_TIMEOUT_MS = 10_000;
const TEXT_TYPES = ["text/html", "application/xhtml+xml", "text/plain", "text/markdown"];

export type FetchedSource = { ok: true; text: string; mimeType: string } | { ok: false; reason: string };

/**
 * Read a URL source for a build: the outbound URL rules of CONTRACT.md §6 (checked again at send time,
 * no redirects followed), a timeout, a content-type check and a size cap; HTML becomes text in one
 * linear scan. Failure is an answer, not an exception: an unreadable source becomes a review flag.
 */
export async function fetchSource(url: string, opts: { allowPrivateUrls: boolean; maxBytes?: number; timeoutMs?: number }): Promise<FetchedSource> {
  const maxBytes = opts.maxBytes ?? SOURCE_MAX_BYTES;
  let res: Response;
  try {
    res = await providerFetch(url, {
      allowPrivateUrls: opts.allowPrivateUrls,
      timeoutMs: opts.timeoutMs ?? SOURCE_TIMEOUT_MS,
      headers: { accept: TEXT_TYPES.join(", "), "user-agent": "Herald/1 (publication build)" },
    });
  } catch (err) {
    return { ok: false, reason: `The source ${url.slice(0, 200)} could not be read: ${err instanceof ProviderError ? err.message : "network error"}` };
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => {});
    return {
      ok: false,
      reason: `The source ${url.slice(0, 200)} redirects elsewhere (${res.status}); Herald does not follow redirects, so give the final address.`,
    };
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    return { ok: false, reason: `The source ${url.slice(0, 200)} answered ${res.status}.` };
  }
  const mimeType = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!TEXT_TYPES.includes(mimeType)) {
    await res.body?.cancel().catch(() => {});
    return { ok: false, reason: `The source ${url.slice(0, 200)} is ${mimeType || "of no stated type"}, not a web page or text.` };
  }
  const raw = await readTextCapped(res, maxBytes);
  if (raw === null)
    return {
      ok: false,
      reason: `The source ${url.slice(0, 200)} is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB or could not be read to the end in time.`,
    };
  const text = mimeType === "text/html" || mimeType === "application/xhtml+xml" ? pageText(raw) : raw.trim();
  if (!text) return { ok: false, reason: `The source ${url.slice(0, 200)} has no readable text.` };
  return { ok: true, text, mimeType };
}

const DROPPED = new Set(["script", "style", "noscript", "template", "svg", "head", "title"]);
const BLOCKS = new Set([
  "p",
  "/p",
  "div",
  "/div",
  "br",
  "br/",
  "li",
  "/li",
  "ul",
  "/ul",
  "ol",
  "/ol",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "/h1",
  "/h2",
  "/h3",
  "/h4",
  "/h5",
  "/h6",
  "tr",
  "/tr",
  "table",
  "/table",
  "section",
  "/section",
  "article",
  "/article",
  "blockquote",
  "/blockquote",
  "header",
  "footer",
  "main",
  "nav",
  "pre",
  "/pre",
  "hr",
  "hr/",
]);
const CELLS = new Set(["td", "th"]);
/** Where each dropped element ends: a literal, case-insensitive search from a given index (no backtracking). */
const CLOSING = new Map([...DROPPED].map((name) => [name, new RegExp(`</${name}`, "gi")]));
const NAMED: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39, nbsp: 32 };

/** The tag's name right after "<" (at most 12 characters, lower case): "p", "/div", "br/", "!--". */
function tagName(html: string, from: number, close: number): string {
  let name = "";
  for (let k = from; k < close && name.length < 12; k++) {
    const c = html.charCodeAt(k);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 47 || c === 33 || c === 45;
    if (!ok) break;
    name += html[k];
  }
  return name.toLowerCase();
}

/** The code point of the entity whose name runs from `from` to `semicolon`, or -1. */
function entityCode(name: string): number {
  const lower = name.toLowerCase();
  if (Object.hasOwn(NAMED, lower)) return NAMED[lower];
  const code = /^#\d{1,7}$/.test(lower) ? Number(lower.slice(1)) : /^#x[0-9a-f]{1,6}$/.test(lower) ? parseInt(lower.slice(2), 16) : -1;
  return code >= 0 && code <= 0x10ffff ? code : -1;
}

const SPACE = 1;
const LINE = 2;
const PARAGRAPH = 3;

/**
 * A page's readable text in one forward scan: elements that hold no prose (script, style, …) are
 * skipped with their content, block tags make paragraphs, whitespace collapses, entities decode.
 * Output goes into one preallocated buffer (it is never longer than the page) and every search
 * starts where the last stopped, so the cost is linear in the page with no garbage per tag
 * (test/build-sources.test.ts times 1× against 10×).
 */
export function pageText(html: string): string {
  const out = new Uint16Array(html.length + 4);
  let len = 0;
  let pending = 0;
  const put = (code: number) => {
    if (pending && len > 0) {
      if (pending === PARAGRAPH) (out[len++] = 10), (out[len++] = 10);
      else out[len++] = pending === LINE ? 10 : 32;
    }
    pending = 0;
    if (code > 0xffff) {
      out[len++] = 0xd800 + ((code - 0x10000) >> 10);
      out[len++] = 0xdc00 + ((code - 0x10000) & 0x3ff);
    } else out[len++] = code;
  };
  let tagsLeft = true;
  let semicolon = -2; // the next ";" at or after i (-1: none left), found once and reused
  let i = 0;
  while (i < html.length) {
    const c = html.charCodeAt(i);
    if (c === 60 && tagsLeft) {
      const close = html.indexOf(">", i + 1);
      if (close === -1)
        tagsLeft = false; // no tag closes after this point: the rest is text
      else {
        const name = tagName(html, i + 1, close);
        i = close + 1;
        const closing = CLOSING.get(name);
        if (closing) {
          closing.lastIndex = i;
          const end = closing.exec(html);
          const after = end ? html.indexOf(">", end.index) : -1;
          i = after === -1 ? html.length : after + 1;
        } else if (BLOCKS.has(name)) pending = PARAGRAPH;
        else if (CELLS.has(name)) pending = Math.max(pending, SPACE);
        continue;
      }
    }
    if (c === 38) {
      if (semicolon !== -1 && semicolon <= i) semicolon = html.indexOf(";", i + 1);
      const code = semicolon !== -1 && semicolon - i <= 10 ? entityCode(html.slice(i + 1, semicolon)) : -1;
      if (code === 32) pending = Math.max(pending, SPACE);
      else if (code >= 0) put(code);
      else put(c);
      i = code >= 0 ? semicolon + 1 : i + 1;
      continue;
    }
    if (c === 10 || c === 13) pending = Math.max(pending, LINE);
    else if (c === 32 || c === 9 || c === 12 || c === 11 || c === 0xa0) pending = Math.max(pending, SPACE);
    else if (pending || c > 0x7f) put(c);
    else out[len++] = c; // the common case, kept tight
    i++;
  }
  const chunks: string[] = [];
  // apply() with a typed array, in chunks under the argument limit (spreading into arguments is far slower).
  for (let k = 0; k < len; k += 8192) chunks.push(String.fromCharCode.apply(null, out.subarray(k, Math.min(len, k + 8192)) as unknown as number[]));
  return chunks.join("");
}
