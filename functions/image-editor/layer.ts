import { z } from "@hono/zod-openapi";
import { knownValue } from "../../lib/schemas/common";
import { Gradient, toneFields } from "./color";
import { Bool, Color, ElementId, Int, Label, MediaRef, Num, Pixels, Points, Spans } from "./primitives";

/** SPEC.md 2.3 Layer. Which sub-objects apply to which layer type is not stated, so all are optional. */

const Transform = z
  .object({ x: Num, y: Num, width: Num, height: Num, rotation: Num, flip_x: Bool.optional(), flip_y: Bool.optional() })
  .openapi("LayerTransform");

const Shadow = z.object({ angle: Num, blur: Num, color: Color, distance: Num, opacity: Num }).partial().openapi("LayerShadow");

const Effects = z
  .object({
    blend_mode: knownValue("normal", "Blend mode"),
    drop_shadow: Shadow,
    inner_shadow: Shadow,
    stroke: z
      .object({ color: Color, opacity: Num, position: knownValue("inside", "Stroke position"), width: Num })
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
    strokes: z.array(z.object({ points: Points, size: Int }).openapi("EraseStroke")).max(1000),
  })
  .partial()
  .openapi("EraseMask");

const ImageContent = z
  .object({
    adjustments: z.object({ blur: Num, ...toneFields }).partial().openapi("ImageAdjustments"),
    color_grade_version: Int,
    crop: z.object({ height: Num, width: Num, x: Num, y: Num }).openapi("ImageCrop"),
    fit: knownValue("cover", "How the image fills its box"),
    intrinsic_pending: Bool,
    media_id: MediaRef,
    source_height: Pixels,
    source_width: Pixels,
  })
  .partial()
  .openapi("ImageLayerContent");

const Mask = z.object({ inset: Num, radius: Num, shape: knownValue("rectangle", "Mask shape") }).partial().openapi("LayerMask");

const Paint = z
  .object({
    color: Color,
    gradient: Gradient,
    kind: knownValue("stroke", "Paint kind"),
    opacity: Num,
    points: Points,
    size: Num,
    source_height: Pixels,
    source_width: Pixels,
    spans: Spans,
  })
  .partial()
  .openapi("PaintContent");

const Shape = z
  .object({ fill: Color, kind: knownValue("rectangle", "Shape kind"), radius: Num, stroke: Color, stroke_width: Num })
  .partial()
  .openapi("ShapeContent");

const Text = z
  .object({
    text: z.string().max(10_000),
    align: z.string().max(32),
    color: Color,
    curve: z
      .object({ offset: Num, strength: Num, reverse: Bool, type: knownValue("none", "Text curve") })
      .partial()
      .openapi("TextCurve"),
    font_asset_id: MediaRef,
    font_family: Label,
    font_style: Label,
    font_size: Num,
    font_weight: z.number().int().min(1).max(1000),
    letter_spacing: Num,
    line_height: Num,
    highlight_color: Color.nullable(),
    shadow: z.object({ blur: Num, offset_x: Num, offset_y: Num, color: Color }).partial().openapi("TextShadow"),
    strike: Bool,
    underline: Bool,
    stroke_color: Color.nullable(),
    stroke_width: Num,
    wrap: knownValue("word", "Line wrapping"),
  })
  .partial()
  .openapi("TextContent");

export const Layer = z
  .object({
    id: ElementId,
    name: Label,
    type: knownValue("text", "Layer kind"),
    parent_id: ElementId.nullable().optional().openapi({ description: "Group layer this one belongs to" }),
    locked: Bool,
    visible: Bool,
    opacity: Num,
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
