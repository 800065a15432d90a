import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { fromBase64Url, toBase64Url } from "../crypto";
import { publicBaseUrl } from "../env";
import { ApiError } from "./errors";

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
    new ApiError("validation-error", {
      detail: "The cursor is not one this API issued; start again without it.",
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

/** `limit` query parameter: default and maximum per operation. */
export const limitParam = (defaultLimit: number, max: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(defaultLimit)
    .openapi({ description: `Page size, 1 to ${max}`, example: defaultLimit });

export const cursorParam = z.string().max(512).optional().openapi({ description: "Opaque cursor from a previous page's Link header" });

/** Adds `Link: <…cursor=…>; rel="next"` keeping every other query parameter. */
export function setNextLink(c: Context, nextCursor: string | null): void {
  if (!nextCursor) return;
  const url = new URL(c.req.url);
  url.searchParams.set("cursor", nextCursor);
  url.searchParams.delete("offset");
  c.header("link", `<${publicBaseUrl(c.env ?? {}, c.req.url)}${url.pathname}${url.search}>; rel="next"`);
}
