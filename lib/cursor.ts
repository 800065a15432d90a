import { fromBase64Url, toBase64Url } from "./crypto";
import { DomainError } from "./errors";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Opaque keyset cursors: the position after the last row returned, as base64url JSON with a version
 * tag. Keyset positions stay correct when rows are inserted ahead of them.
 */
export function encodeCursor(position: (string | number)[]): string {
  return toBase64Url(encoder.encode(JSON.stringify({ v: 1, p: position })));
}

/**
 * `date`: an ISO timestamp as toISOString() writes it; `number`: an integer in Postgres' integer range;
 * `string`: an id or name, short and without NUL. Anything else was not issued by us, and must be a 422
 * here rather than an error from the database later.
 */
type CursorPart = "string" | "number" | "date";

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const fits: Record<CursorPart, (value: unknown) => boolean> = {
  date: (v) => typeof v === "string" && ISO_INSTANT.test(v) && !Number.isNaN(Date.parse(v)),
  number: (v) => Number.isInteger(v) && Math.abs(v as number) <= 2_147_483_647,
  string: (v) => typeof v === "string" && v.length <= 300 && !v.includes("\u0000"),
};

export function decodeCursor(cursor: string, shape: CursorPart[]): (string | number)[] {
  const bad = () =>
    new DomainError("validation-error", "The cursor is not one this API issued; start again without it.", {
      errors: [{ location: "query.cursor", message: "Invalid cursor" }],
    });
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: { v?: unknown; p?: unknown } | null;
  try {
    parsed = JSON.parse(decoder.decode(fromBase64Url(cursor)));
  } catch {
    throw bad();
  }
  const p = parsed?.p;
  if (parsed?.v !== 1 || !Array.isArray(p) || p.length !== shape.length) throw bad();
  if (!p.every((value, i) => fits[shape[i]](value))) throw bad();
  return p as (string | number)[];
}
