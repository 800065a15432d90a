import { z } from "@hono/zod-openapi";

/**
 * Bounded primitives of the image document. The same schemas validate what clients send and describe
 * what Herald returns (documents are stored as validated), so every string, array and number is capped
 * here. SPEC.md leaves numeric ranges unstated; the ranges below are Herald's (CONTRACT.md: "values
 * outside listed enums or limits" are 422).
 */

/** Canvas and source-image pixel limits. */
export const MAX_CANVAS_PX = 8192;
export const MAX_PAGES = 50;
export const MAX_LAYERS_PER_PAGE = 500;

/** A position or length in canvas pixels; generous so layers may sit partly off-canvas. */
export const Coord = z.number().min(-100_000).max(100_000);
/** A length that must be greater than zero (layer boxes, font sizes). */
export const PositiveLength = z.number().gt(0).max(100_000);
/** A length that may be zero (stroke widths, radii, blur). */
export const Length = z.number().min(0).max(100_000);
/** Opacity and other unit fractions. */
export const Fraction = z.number().min(0).max(1);
/** Degrees, for rotations and angles; a few turns either way. */
export const Degrees = z.number().min(-3600).max(3600);
/** A tone adjustment slider (brightness, contrast, saturation, …): −100 … 100. */
export const Slider = z.number().min(-100).max(100);
export const Int = z.number().int();
/** A small non-negative version counter. */
export const Version = z.number().int().min(0).max(1_000_000);
export const Bool = z.boolean();
export const Label = z.string().max(200);
export const ElementId = z.string().min(1).max(100);
/** A media library item id, or null when none is attached. */
export const MediaRef = z.string().min(1).max(100).nullable();
/** Pixel dimensions of a source image. */
export const Pixels = z.number().int().min(0).max(100_000);

const HEX = "#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})";
const CHANNEL = String.raw`\s*(?:25[0-5]|2[0-4]\d|1?\d?\d)\s*`;
const ALPHA = String.raw`\s*(?:0|1|0?\.\d{1,6}|1\.0{1,6}|\d{1,2}(?:\.\d+)?%|100%)\s*`;
const RGB = String.raw`rgba?\(${CHANNEL},${CHANNEL},${CHANNEL}(?:,${ALPHA})?\)`;
/**
 * The colour syntaxes Herald accepts: CSS hex, `rgb()` / `rgba()` with commas, `transparent`. No flags, so the
 * pattern published in the OpenAPI document means exactly what is enforced.
 */
export const COLOR_PATTERN = new RegExp(`^(?:${HEX}|${RGB}|transparent)$`);

export const Color = z
  .string()
  .max(64)
  .regex(COLOR_PATTERN, { message: "Expected a CSS colour: #rgb, #rgba, #rrggbb, #rrggbbaa, rgb(r, g, b), rgba(r, g, b, a) or transparent" })
  .openapi({ example: "#1f2937", description: "CSS hex (#rgb, #rgba, #rrggbb, #rrggbbaa), rgb()/rgba(), or transparent" });

export const Point = z.object({ x: Coord, y: Coord }).openapi("Point");
export const Points = z.array(Point).max(5000);
export const Span = z.object({ width: Length, x: Coord, y: Coord }).openapi("Span");
export const Spans = z.array(Span).max(5000);
