import { providerFetch } from "../providers/http";
import { htmlToText } from "../providers/text";
import { ProviderError } from "../providers/types";

/** A page larger than this is read only up to here (the rest is dropped and flagged). */
export const SOURCE_MAX_BYTES = 2 * 1024 * 1024;
export const SOURCE_TIMEOUT_MS = 10_000;
const TEXT_TYPES = ["text/html", "application/xhtml+xml", "text/plain", "text/markdown"];

export type FetchedSource = { ok: true; text: string; mimeType: string; truncated: boolean } | { ok: false; reason: string };

/**
 * Read a URL source for a build: the outbound URL rules of CONTRACT.md §6 (checked again at send time,
 * no redirects followed), a timeout, a content-type check and a size cap; HTML becomes text in one
 * linear scan. Failure is an answer, not an exception: an unreadable source becomes a review flag.
 */
export async function fetchSource(url: string, opts: { allowPrivateUrls: boolean; maxBytes?: number; timeoutMs?: number }): Promise<FetchedSource> {
  const maxBytes = opts.maxBytes ?? SOURCE_MAX_BYTES;
  let res: Response;
  try {
    res = await providerFetch(url, { allowPrivateUrls: opts.allowPrivateUrls, timeoutMs: opts.timeoutMs ?? SOURCE_TIMEOUT_MS, headers: { accept: TEXT_TYPES.join(", "), "user-agent": "Herald/1 (publication build)" } });
  } catch (err) {
    return { ok: false, reason: `The source ${url.slice(0, 200)} could not be read: ${err instanceof ProviderError ? err.message : "network error"}` };
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    return { ok: false, reason: `The source ${url.slice(0, 200)} redirects elsewhere (${res.status}); Herald does not follow redirects, so give the final address.` };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return { ok: false, reason: `The source ${url.slice(0, 200)} answered ${res.status}.` };
  }
  const mimeType = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!TEXT_TYPES.includes(mimeType)) {
    await res.body?.cancel();
    return { ok: false, reason: `The source ${url.slice(0, 200)} is ${mimeType || "of no stated type"}, not a web page or text.` };
  }
  let raw: { text: string; truncated: boolean };
  try {
    raw = await readCapped(res, maxBytes, opts.timeoutMs ?? SOURCE_TIMEOUT_MS);
  } catch {
    return { ok: false, reason: `The source ${url.slice(0, 200)} could not be read to the end in time.` };
  }
  const text = mimeType === "text/html" || mimeType === "application/xhtml+xml" ? pageText(raw.text) : raw.text.trim();
  if (!text) return { ok: false, reason: `The source ${url.slice(0, 200)} has no readable text.` };
  return { ok: true, text, mimeType, truncated: raw.truncated };
}

/** At most `maxBytes` of the body as UTF-8; the stream is cancelled beyond that. */
async function readCapped(res: Response, maxBytes: number, timeoutMs: number): Promise<{ text: string; truncated: boolean }> {
  const reader = res.body?.getReader();
  if (!reader) return { text: "", truncated: false };
  const decoder = new TextDecoder();
  const deadline = Date.now() + timeoutMs;
  let size = 0;
  let text = "";
  for (;;) {
    if (Date.now() > deadline) {
      await reader.cancel();
      throw new Error("timeout");
    }
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength >= room) {
      text += decoder.decode(value.subarray(0, room));
      await reader.cancel();
      return { text, truncated: true };
    }
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode(), truncated: false };
}

const DROPPED = ["script", "style", "noscript", "template", "svg", "head"];
const BLOCKS = new Set(["p", "/p", "div", "/div", "br", "br/", "li", "h1", "h2", "h3", "h4", "h5", "h6", "/h1", "/h2", "/h3", "/h4", "/h5", "/h6", "tr", "section", "article", "blockquote"]);

/**
 * A page's readable text in one forward scan: elements that hold no prose (script, style, …) are
 * skipped with their content, block tags become blank lines, other tags go and entities decode
 * (lib/providers/text htmlToText). Every index only moves forward, so the cost is linear.
 */
export function pageText(html: string): string {
  const lower = html.toLowerCase();
  let out = "";
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf("<", i);
    if (open === -1) {
      out += html.slice(i);
      break;
    }
    out += html.slice(i, open);
    const close = html.indexOf(">", open + 1);
    if (close === -1) {
      out += html.slice(open);
      break;
    }
    const name = /^\/?[a-z0-9]+\/?/.exec(lower.slice(open + 1, Math.min(close, open + 20)))?.[0] ?? "";
    i = close + 1;
    if (DROPPED.includes(name)) {
      const end = lower.indexOf(`</${name}`, i);
      i = end === -1 ? html.length : Math.max(i, lower.indexOf(">", end) + 1 || html.length);
      continue;
    }
    if (BLOCKS.has(name)) out += "\n\n";
    else out += " ";
  }
  // Entities decode in htmlToText's linear scan (no tags are left for it to drop).
  return collapseBlankLines(htmlToText(out.replace(/</g, "&lt;")));
}

function collapseBlankLines(text: string): string {
  const out: string[] = [];
  let blank = false;
  for (const line of text.split("\n")) {
    const t = line.replace(/[ \t\f\v\u00a0]+/g, " ").trim();
    if (!t) {
      blank = out.length > 0;
      continue;
    }
    if (blank) out.push("");
    out.push(t);
    blank = false;
  }
  return out.join("\n");
}
