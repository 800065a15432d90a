/**
 * JSON Pointer (RFC 6901) parsing and comparison. Paths of video mutations are pointers inside one
 * element of the document; they are compared by segments, never as strings, so `/style` is a prefix of
 * `/style/color` but not of `/styles`.
 */

/** The whole syntax: "" or a sequence of `/segment`, where `~` only appears as `~0` or `~1`. */
export const JSON_POINTER_PATTERN = /^(\/([^/~]|~[01])*)*$/;

export type Segments = readonly string[];

export class PointerSyntaxError extends Error {}

/** Segments of a pointer, unescaped (`~1` → `/`, then `~0` → `~`). */
export function parsePointer(pointer: string): string[] {
  if (!JSON_POINTER_PATTERN.test(pointer)) {
    throw new PointerSyntaxError('Not a JSON Pointer: use "" or /segment/segment, escaping ~ as ~0 and / as ~1');
  }
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function formatPointer(segments: Segments): string {
  return segments.map((s) => "/" + s.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** Whether `prefix` is a segment-wise prefix of `path` (a path is a prefix of itself). */
export function isPrefix(prefix: Segments, path: Segments): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== path[i]) return false;
  return true;
}

/** Two paths overlap when either is a prefix of the other: a change at one can change what is at the other. */
export const pathsOverlap = (a: Segments, b: Segments) => isPrefix(a, b) || isPrefix(b, a);

/** An array index in a pointer: `-` (past the end) or a decimal without leading zeros. */
export const isIndexToken = (segment: string) => segment === "-" || /^(0|[1-9][0-9]{0,8})$/.test(segment);
