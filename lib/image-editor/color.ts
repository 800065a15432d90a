import { z } from "@hono/zod-openapi";
import { Bool, Color, Fraction, Point, Slider } from "./primitives";

/** Hue rotations and hue angles of colour wheels, in degrees. */
const Hue = z.number().min(-360).max(360);

/** SPEC.md 2.3 Gradient. */
export const Gradient = z
  .object({
    type: z.enum(["linear", "radial"]).openapi({ description: "Gradient kind" }),
    start: Point,
    end: Point,
    reverse: Bool,
    stops: z.array(z.object({ color: Color, offset: Fraction }).openapi("GradientStop")).max(32),
  })
  .partial()
  .openapi("Gradient");

const CurvePoints = z.string().max(4096);

/** SPEC.md 2.3 Curves: serialised control points per channel. */
export const Curves = z
  .object({ bluePoints: CurvePoints, greenPoints: CurvePoints, masterPoints: CurvePoints, redPoints: CurvePoints })
  .partial()
  .openapi("Curves");

/** SPEC.md 2.3 Wheels: lift/gamma/gain colour wheels; amounts are sliders, hues are angles. */
export const Wheels = z
  .object({
    gain: Slider,
    gamma: Slider,
    highlightsAmount: Slider,
    highlightsHue: Hue,
    lift: Slider,
    midtonesAmount: Slider,
    midtonesHue: Hue,
    offset: Slider,
    offsetAmount: Slider,
    offsetHue: Hue,
    shadowsAmount: Slider,
    shadowsHue: Hue,
  })
  .partial()
  .openapi("Wheels");

/** Tone and colour adjustments common to page colour grades and image layers (sliders −100 … 100, hue in degrees). */
export const toneFields = {
  brightness: Slider,
  contrast: Slider,
  exposure: Slider,
  highlights: Slider,
  hue: Hue,
  saturation: Slider,
  shadows: Slider,
  temperature: Slider,
  tint: Slider,
  vibrance: Slider,
  curves: Curves,
  wheels: Wheels,
};

/** SPEC.md 2.3 ColorGrade. */
export const ColorGrade = z.object(toneFields).partial().openapi("ColorGrade");
