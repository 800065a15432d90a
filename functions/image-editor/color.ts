import { z } from "@hono/zod-openapi";
import { knownValue } from "../../lib/schemas/common";
import { Bool, Color, Num, Point } from "./primitives";

/** SPEC.md 2.3 Gradient. */
export const Gradient = z
  .object({
    type: knownValue("linear", "Gradient kind"),
    start: Point,
    end: Point,
    reverse: Bool,
    stops: z.array(z.object({ color: Color, offset: Num }).openapi("GradientStop")).max(32),
  })
  .partial()
  .openapi("Gradient");

const CurvePoints = z.string().max(4096);

/** SPEC.md 2.3 Curves: serialised control points per channel. */
export const Curves = z
  .object({ bluePoints: CurvePoints, greenPoints: CurvePoints, masterPoints: CurvePoints, redPoints: CurvePoints })
  .partial()
  .openapi("Curves");

/** SPEC.md 2.3 Wheels: lift/gamma/gain colour wheels. */
export const Wheels = z
  .object({
    gain: Num,
    gamma: Num,
    highlightsAmount: Num,
    highlightsHue: Num,
    lift: Num,
    midtonesAmount: Num,
    midtonesHue: Num,
    offset: Num,
    offsetAmount: Num,
    offsetHue: Num,
    shadowsAmount: Num,
    shadowsHue: Num,
  })
  .partial()
  .openapi("Wheels");

/** Tone and colour adjustments common to page colour grades and image layers. */
export const toneFields = {
  brightness: Num,
  contrast: Num,
  exposure: Num,
  highlights: Num,
  hue: Num,
  saturation: Num,
  shadows: Num,
  temperature: Num,
  tint: Num,
  vibrance: Num,
  curves: Curves,
  wheels: Wheels,
};

/** SPEC.md 2.3 ColorGrade. */
export const ColorGrade = z.object(toneFields).partial().openapi("ColorGrade");
