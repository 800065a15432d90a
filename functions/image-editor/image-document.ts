import { z } from "@hono/zod-openapi";
import { knownValue } from "../../lib/schemas/common";
import { ColorGrade, Gradient } from "./color";
import { Layer } from "./layer";
import { Color, ElementId, Int, Label, MediaRef, Num } from "./primitives";

/** SPEC.md 2.3 Page. */
export const Page = z
  .object({
    id: ElementId,
    name: Label,
    background_color: Color.optional(),
    latest_export_media_id: MediaRef.optional(),
    preview_media_id: MediaRef.optional(),
    color_grade_version: Int.optional(),
    background: z
      .object({
        color: Color,
        gradient: Gradient,
        image: z.object({ fit: knownValue("cover", "How the image fills the page"), media_id: MediaRef }).partial().openapi("BackgroundImage"),
        opacity: Num,
        type: knownValue("transparent", "Background kind"),
      })
      .partial()
      .openapi("PageBackground")
      .optional(),
    color_grade: ColorGrade.optional(),
    guides: z
      .object({ horizontal: z.array(Num).max(100), vertical: z.array(Num).max(100) })
      .partial()
      .openapi("PageGuides")
      .optional(),
    layers: z.array(Layer).max(500),
  })
  .openapi("Page");

/** SPEC.md 2.3 ImageDocument: the whole editable design, stored and returned as sent. */
export const ImageDocument = z
  .object({
    schema_version: z.number().int().min(1).max(1000),
    title: z.string().max(200).optional(),
    width_px: z.number().int().min(1).max(20_000),
    height_px: z.number().int().min(1).max(20_000),
    preset_key: z.string().max(100).nullable().optional(),
    brand_kit_id: MediaRef.optional().openapi({ description: "Brand kit the design follows, if any" }),
    brand_kit_revision: Int.nullable().optional(),
    export_defaults: z
      .object({ format: knownValue("png", "Export file format"), matte_color: Color, quality: Num })
      .partial()
      .openapi("ExportDefaults")
      .optional(),
    pages: z.array(Page).min(1).max(50),
  })
  .openapi("ImageDocument");
