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

/** `date` is an ISO timestamp carried as a string. */
type CursorPart = "string" | "number" | "date";

export function decodeCursor(cursor: string, shape: CursorPart[]): (string | number)[] {
  const bad = () => new ApiError("validation-error", {
    detail: "The cursor is not one this API issued; start again without it.",
    errors: [{ location: "query.cursor", message: "Invalid cursor" }],
  });
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(fromBase64Url(cursor)));
  } catch {
    throw bad();
  }
  const p = (parsed as { v?: unknown; p?: unknown })?.p;
  if ((parsed as { v?: unknown }).v !== 1 || !Array.isArray(p) || p.length !== shape.length) throw bad();
  p.forEach((value, i) => {
    const ok = shape[i] === "date" ? typeof value === "string" && !Number.isNaN(Date.parse(value)) : typeof value === shape[i];
    if (!ok) throw bad();
  });
  return p as (string | number)[];
}

/** `limit` query parameter: default and maximum per operation. */
export const limitParam = (defaultLimit: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(defaultLimit).openapi({ description: `Page size, 1 to ${max}`, example: defaultLimit });

export const cursorParam = z.string().max(512).optional().openapi({ description: "Opaque cursor from a previous page's Link header" });

/** Adds `Link: <…cursor=…>; rel="next"` keeping every other query parameter. */
export function setNextLink(c: Context, nextCursor: string | null): void {
  if (!nextCursor) return;
  const url = new URL(c.req.url);
  url.searchParams.set("cursor", nextCursor);
  url.searchParams.delete("offset");
  c.header("link", `<${publicBaseUrl(c.env ?? {}, c.req.url)}${url.pathname}${url.search}>; rel="next"`);
}
