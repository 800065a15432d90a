import { malformed } from "../answer";

/**
 * The shapes collectors read from provider answers, checked before anything is stored. Each check answers
 * the value in the type it promised or throws a `malformed_*` ProviderError naming the call and field
 * (never the content). Pure: tested directly.
 */

/**
 * Longer ids are refused: real ones are far shorter (Mastodon ids are decimal numbers, at:// URIs a few
 * hundred characters at most), and an external id must fit the content items' unique index.
 */
export const MAX_ID_LENGTH = 1000;

export type Shape = Record<string, unknown>;

export function objectOf(v: unknown, what: string): Shape {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw malformed("malformed_type", `${what} is not an object.`);
  return v as Shape;
}

export function arrayOf(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw malformed("malformed_type", `${what} is not a list.`);
  return v;
}

/** A provider id: a string of 1 to MAX_ID_LENGTH characters without control characters. */
export function idOf(v: unknown, what: string): string {
  if (v === undefined || v === null || v === "") throw malformed("malformed_id", `${what} is missing.`);
  if (typeof v !== "string") throw malformed("malformed_id", `${what} is a ${typeof v}, not a string.`);
  if (v.length > MAX_ID_LENGTH) throw malformed("malformed_id", `${what} is ${v.length} characters long (at most ${MAX_ID_LENGTH}).`);
  if ([...v].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) throw malformed("malformed_id", `${what} contains control characters.`);
  return v;
}

/** An optional id (a paging cursor): absent is null, present must be a valid id. */
export const optionalIdOf = (v: unknown, what: string): string | null => (v === undefined || v === null ? null : idOf(v, what));

/** A time the provider gives as an ISO 8601 string. */
export function timeOf(v: unknown, what: string): Date {
  const ms = typeof v === "string" ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms)) throw malformed("malformed_type", `${what} is not a date.`);
  return new Date(ms);
}

/** Optional text: absent is null; anything but a string is malformed. */
export function optionalTextOf(v: unknown, what: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw malformed("malformed_type", `${what} is a ${typeof v}, not text.`);
  return v;
}

/** A count: absent is undefined (the provider did not give it); present must be a non-negative safe integer. */
export function optionalCountOf(v: unknown, what: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw malformed("malformed_type", `${what} is not a count.`);
  return v;
}
