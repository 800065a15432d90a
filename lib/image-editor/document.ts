import { z } from "@hono/zod-openapi";
import type { StoredImageDocument } from "../../db/schema";
import { documentIssues } from "./document-rules";
import { ColorGrade, Gradient } from "./color";
import { Fit, Layer } from "./layer";
import { Color, Coord, ElementId, Fraction, Label, MAX_CANVAS_PX, MAX_LAYERS_PER_PAGE, MAX_PAGES, MediaRef, Version } from "./primitives";

/** The ImageDocument schema version this Herald understands. */
export const IMAGE_DOCUMENT_SCHEMA_VERSION = 1;

/** SPEC.md 2.3 Page. */
export const Page = z
  .object({
    id: ElementId,
    name: Label,
    background_color: Color.optional(),
    latest_export_media_id: MediaRef.optional(),
    preview_media_id: MediaRef.optional(),
    color_grade_version: Version.optional(),
    background: z
      .object({
        color: Color,
        gradient: Gradient,
        image: z.object({ fit: Fit, media_id: MediaRef }).partial().openapi("BackgroundImage"),
        opacity: Fraction,
        type: z.enum(["transparent", "color", "gradient", "image"]).openapi({ description: "Background kind" }),
      })
      .partial()
      .openapi("PageBackground")
      .optional(),
    color_grade: ColorGrade.optional(),
    guides: z
      .object({ horizontal: z.array(Coord).max(100), vertical: z.array(Coord).max(100) })
      .partial()
      .openapi("PageGuides")
      .optional(),
    layers: z.array(Layer).max(MAX_LAYERS_PER_PAGE),
  })
  .openapi("Page");

/**
 * SPEC.md 2.3 ImageDocument: the whole editable design, one schema for designs and templates. Canvas
 * 1–8192 px a side, 1–50 pages, at most 500 layers a page; page ids unique, layer ids unique on their page,
 * `parent_id` naming a group layer on the same page. Unknown members are dropped.
 */
export const ImageDocument = z
  .object({
    schema_version: z
      .number()
      .int()
      .min(1)
      .max(IMAGE_DOCUMENT_SCHEMA_VERSION)
      .openapi({ description: `Document format version; ${IMAGE_DOCUMENT_SCHEMA_VERSION} is current` }),
    title: z.string().max(200).optional(),
    width_px: z
      .number()
      .int()
      .min(1)
      .max(MAX_CANVAS_PX)
      .openapi({ description: `Canvas width, 1 to ${MAX_CANVAS_PX} px` }),
    height_px: z
      .number()
      .int()
      .min(1)
      .max(MAX_CANVAS_PX)
      .openapi({ description: `Canvas height, 1 to ${MAX_CANVAS_PX} px` }),
    preset_key: z.string().max(100).nullable().optional(),
    brand_kit_id: MediaRef.optional().openapi({ description: "Brand kit the design follows, if any" }),
    brand_kit_revision: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
    export_defaults: z
      .object({ format: z.enum(["png", "jpeg", "webp"]).openapi({ description: "Export file format" }), matte_color: Color, quality: Fraction })
      .partial()
      .openapi("ExportDefaults")
      .optional(),
    pages: z.array(Page).min(1).max(MAX_PAGES),
  })
  .superRefine((doc, ctx) => {
    for (const issue of documentIssues(doc)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  })
  .openapi("ImageDocument");

export type ImageDocumentValue = z.infer<typeof ImageDocument>;

/**
 * A document read back from design_revisions or image_templates, as the model's value. Every document written
 * there passed ImageDocument first (the routes take it from a validated body; a restore copies a stored
 * one), so it is not parsed again on each read.
 */
export const storedImageDocument = (stored: StoredImageDocument): ImageDocumentValue => stored as ImageDocumentValue;
