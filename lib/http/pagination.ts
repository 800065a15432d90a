import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { publicBaseUrl } from "../env";

// The codec is domain-side (lib/cursor.ts) so domain code can page without lib/http; routes import it from here too.
export { decodeCursor, encodeCursor } from "../cursor";

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
