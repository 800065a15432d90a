/** Media tags (CONTRACT.md §6): free-form labels whose id is the normalised name, trimmed and lower-cased. */

export const MAX_TAG_LENGTH = 50;
export const MAX_TAGS = 50;

export const normalizeTag = (name: string): string => name.trim().toLowerCase();

/** A tag name the API accepts: no commas (upload and tag_ids take comma-separated lists), no control characters. */
export const TAG_PATTERN = /^[^,\p{Cc}]+$/u;

/** Normalised, de-duplicated, empty entries dropped, first-seen order kept. */
export function normalizeTags(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const tag = normalizeTag(name);
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

/** A comma-separated list (multipart `tags`, query `tag_ids`) as normalised tag ids. */
export const parseTagList = (list: string): string[] => normalizeTags(list.split(","));

/** Why a list of tags is not acceptable, or null when it is. */
export function tagProblem(tags: readonly string[]): string | null {
  if (tags.length > MAX_TAGS) return `At most ${MAX_TAGS} tags`;
  const bad = tags.find((t) => t.length > MAX_TAG_LENGTH || !TAG_PATTERN.test(t));
  return bad === undefined ? null : `Each tag is 1 to ${MAX_TAG_LENGTH} characters without commas or control characters`;
}

/**
 * What `search` matches: file name, alt text and tags, lower-cased, joined by a separator nobody types,
 * so a search never matches across the end of one field and the start of the next.
 */
export function searchDocument(item: { originalFilename: string | null; altText: string | null; tags: readonly string[] }): string {
  return [item.originalFilename ?? "", item.altText ?? "", ...item.tags].join("\u001f").toLowerCase();
}

/** A LIKE pattern matching `term` anywhere, with LIKE's wildcards in the term taken literally. */
export const containsPattern = (term: string): string => `%${term.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
