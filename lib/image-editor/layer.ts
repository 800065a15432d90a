import { z } from "@hono/zod-openapi";
import { knownValue } from "../schemas/common";
import { Gradient, toneFields } from "./color";
import { Bool, Color, Coord, Degrees, ElementId, Fraction, Label, Length, MediaRef, Pixels, Points, PositiveLength, Spans, Version } from "./primitives";

/**
 * SPEC.md 2.3 Layer. Which sub-objects apply to which layer type is not stated, so all are optional.
 * Enumerations whose full value set is standard (blend modes, fits, alignments, …) are closed: an unknown
 * value is 422. The ones SPEC.md lists a single value for and Herald has no rendering rule of its own for
 * (mask shape, paint kind, shape kind, text curve) stay open, bounded strings.
 */

export const LAYER_TYPES = ["text", "image", "shape", "paint", "group"] as const;

/** CSS mix-blend-mode values. */
export const BLEND_MODES = [
  "normal",
  "multiply",
  "screen",
  "overlay",
  "darken",
  "lighten",
  "color-dodge",
  "color-burn",
  "hard-light",
  "soft-light",
  "difference",
  "exclusion",
  "hue",
  "saturation",
  "color",
  "luminosity",
] as const;

export const Fit = z.enum(["cover", "contain", "fill"]).openapi({ description: "How an image fills its box" });

const Transform = z
  .object({ x: Coord, y: Coord, width: PositiveLength, height: PositiveLength, rotation: Degrees, flip_x: Bool.optional(), flip_y: Bool.optional() })
  .openapi("LayerTransform");

const Shadow = z.object({ angle: Degrees, blur: Length, color: Color, distance: Length, opacity: Fraction }).partial().openapi("LayerShadow");

const Effects = z
  .object({
    blend_mode: z.enum(BLEND_MODES).openapi({ description: "CSS blend mode" }),
    drop_shadow: Shadow,
    inner_shadow: Shadow,
    stroke: z
      .object({ color: Color, opacity: Fraction, position: z.enum(["inside", "center", "outside"]), width: Length })
      .partial()
      .openapi("LayerStroke"),
  })
  .partial()
  .openapi("LayerEffects");

const EraseMask = z
  .object({
    source_height: Pixels,
    source_width: Pixels,
    spans: Spans,
    strokes: z.array(z.object({ points: Points, size: z.number().int().min(1).max(2000) }).openapi("EraseStroke")).max(500),
  })
  .partial()
  .openapi("EraseMask");

const ImageContent = z
  .object({
    adjustments: z
      .object({ blur: z.number().min(0).max(1000), ...toneFields })
      .partial()
      .openapi("ImageAdjustments"),
    color_grade_version: Version,
    crop: z.object({ height: Length, width: Length, x: Coord, y: Coord }).openapi("ImageCrop"),
    fit: Fit,
    intrinsic_pending: Bool,
    media_id: MediaRef,
    source_height: Pixels,
    source_width: Pixels,
  })
  .partial()
  .openapi("ImageLayerContent");

const Mask = z
  .object({ inset: Length, radius: Length, shape: knownValue("rectangle", "Mask shape") })
  .partial()
  .openapi("LayerMask");

const Paint = z
  .object({
    color: Color,
    gradient: Gradient,
    kind: knownValue("stroke", "Paint kind"),
    opacity: Fraction,
    points: Points,
    size: Length,
    source_height: Pixels,
    source_width: Pixels,
    spans: Spans,
  })
  .partial()
  .openapi("PaintContent");

const Shape = z
  .object({ fill: Color, kind: knownValue("rectangle", "Shape kind"), radius: Length, stroke: Color, stroke_width: Length })
  .partial()
  .openapi("ShapeContent");

const Text = z
  .object({
    text: z.string().max(10_000),
    align: z.enum(["left", "center", "right", "justify", "start", "end"]),
    color: Color,
    curve: z
      .object({ offset: z.number().min(-100).max(100), strength: z.number().min(-100).max(100), reverse: Bool, type: knownValue("none", "Text curve") })
      .partial()
      .openapi("TextCurve"),
    font_asset_id: MediaRef,
    font_family: Label,
    font_style: Label,
    font_size: z.number().gt(0).max(4096),
    font_weight: z.number().int().min(1).max(1000),
    letter_spacing: z.number().min(-1000).max(1000),
    line_height: z.number().min(0).max(1000),
    highlight_color: Color.nullable(),
    shadow: z.object({ blur: Length, offset_x: Coord, offset_y: Coord, color: Color }).partial().openapi("TextShadow"),
    strike: Bool,
    underline: Bool,
    stroke_color: Color.nullable(),
    stroke_width: Length,
    wrap: z.enum(["word", "char", "none"]).openapi({ description: "Line wrapping" }),
  })
  .partial()
  .openapi("TextContent");

export const Layer = z
  .object({
    id: ElementId,
    name: Label,
    type: z.enum(LAYER_TYPES).openapi({ description: "Layer kind" }),
    parent_id: ElementId.nullable().optional().openapi({ description: "Group layer (on the same page) this one belongs to" }),
    locked: Bool,
    visible: Bool,
    opacity: Fraction,
    transform: Transform,
    effects: Effects.optional(),
    erase_mask: EraseMask.optional(),
    image: ImageContent.optional(),
    mask: Mask.optional(),
    paint: Paint.optional(),
    shape: Shape.optional(),
    text: Text.optional(),
  })
  .openapi("Layer");
