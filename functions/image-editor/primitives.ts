import { z } from "@hono/zod-openapi";

/**
 * Bounded primitives of the image document. The same schemas validate what clients send and describe
 * what Herald returns (documents are stored as sent), so every string and array is capped here.
 * SPEC.md leaves numeric ranges unstated; numbers are only required to be finite.
 */
export const Num = z.number();
export const Int = z.number().int();
export const Bool = z.boolean();
export const Label = z.string().max(200);
export const Color = z.string().max(64).openapi({ example: "#1f2937" });
export const ElementId = z.string().min(1).max(100);
/** A media library item id, or null when none is attached. */
export const MediaRef = z.string().max(100).nullable();
/** Pixel dimensions of an image document and its sources. */
export const Pixels = z.number().int().min(0).max(100_000);

export const Point = z.object({ x: Num, y: Num }).openapi("Point");
export const Points = z.array(Point).max(10_000);
export const Span = z.object({ width: Num, x: Num, y: Num }).openapi("Span");
export const Spans = z.array(Span).max(10_000);
