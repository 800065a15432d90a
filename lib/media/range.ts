/** A single byte range of an HTTP Range header (RFC 9110 §14.1.2), resolved against the object size. */
export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * `bytes=a-b`, `bytes=a-` or `bytes=-n` as a satisfiable range, or null to answer with the whole
 * object: multiple ranges, other units and unsatisfiable ranges are ignored, which RFC 9110 allows.
 */
export function parseRange(header: string | undefined | null, size: number): ByteRange | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || size <= 0 || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Math.min(Number(match[2]), size);
    return suffix > 0 ? { offset: size - suffix, length: suffix } : null;
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || end < start) return null;
  return { offset: start, length: end - start + 1 };
}
