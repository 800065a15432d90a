import type { ImageDocumentValue } from "./document";

/**
 * Built-in templates: served to every workspace, never stored, never changed through the API. Their ids
 * are stable so clients may bookmark them. Layouts for the common social sizes, each with a background,
 * an accent shape, a title and a subtitle ready to be replaced.
 */
export interface BuiltInTemplate {
  id: string;
  name: string;
  category: string;
  preset_key: string;
  document: ImageDocumentValue;
}

/** When the built-ins were last revised (their created_at / updated_at). */
export const BUILT_IN_TEMPLATES_REVISED_AT = "2026-11-01T00:00:00.000Z";

type Box = { x: number; y: number; width: number; height: number };
type Layer = ImageDocumentValue["pages"][number]["layers"][number];

const base = (id: string, name: string, type: Layer["type"], box: Box): Layer => ({
  id,
  name,
  type,
  locked: false,
  visible: true,
  opacity: 1,
  transform: { ...box, rotation: 0 },
});

const shape = (id: string, name: string, box: Box, fill: string, radius = 0): Layer => ({
  ...base(id, name, "shape", box),
  shape: { kind: "rectangle", fill, radius },
});

const text = (
  id: string,
  name: string,
  box: Box,
  content: string,
  style: { size: number; weight: number; color: string; align?: "left" | "center" },
): Layer => ({
  ...base(id, name, "text", box),
  text: {
    text: content,
    font_family: "Inter",
    font_size: style.size,
    font_weight: style.weight,
    color: style.color,
    align: style.align ?? "left",
    line_height: 1.15,
    letter_spacing: 0,
    wrap: "word",
  },
});

const doc = (
  presetKey: string,
  title: string,
  width: number,
  height: number,
  page: Omit<ImageDocumentValue["pages"][number], "id" | "name">,
): ImageDocumentValue => ({
  schema_version: 1,
  title,
  width_px: width,
  height_px: height,
  preset_key: presetKey,
  export_defaults: { format: "png", quality: 1 },
  pages: [{ id: "page-1", name: "Page 1", ...page }],
});

export const BUILT_IN_TEMPLATES: readonly BuiltInTemplate[] = [
  {
    id: "tpl_builtin_square_post",
    name: "Square post",
    category: "social_post",
    preset_key: "square_post",
    document: doc("square_post", "Square post", 1080, 1080, {
      background_color: "#1e3a8a",
      background: {
        type: "gradient",
        gradient: {
          type: "linear",
          start: { x: 0, y: 0 },
          end: { x: 1080, y: 1080 },
          stops: [
            { color: "#1e3a8a", offset: 0 },
            { color: "#7c3aed", offset: 1 },
          ],
        },
      },
      layers: [
        shape("accent", "Accent bar", { x: 80, y: 96, width: 120, height: 12 }, "#fbbf24", 6),
        text("title", "Title", { x: 80, y: 150, width: 920, height: 380 }, "Your headline goes here", { size: 88, weight: 800, color: "#ffffff" }),
        text("subtitle", "Subtitle", { x: 80, y: 560, width: 920, height: 180 }, "One supporting line that gives the headline its context.", {
          size: 40,
          weight: 400,
          color: "rgba(255, 255, 255, 0.85)",
        }),
        text("handle", "Handle", { x: 80, y: 940, width: 920, height: 56 }, "@yourhandle", { size: 32, weight: 600, color: "#fbbf24" }),
      ],
    }),
  },
  {
    id: "tpl_builtin_portrait_post",
    name: "Portrait quote",
    category: "social_post",
    preset_key: "portrait_post",
    document: doc("portrait_post", "Portrait quote", 1080, 1350, {
      background_color: "#fef3c7",
      background: { type: "color", color: "#fef3c7" },
      layers: [
        shape("frame", "Frame", { x: 60, y: 60, width: 960, height: 1230 }, "#fffbeb", 40),
        text("mark", "Quote mark", { x: 120, y: 120, width: 200, height: 200 }, "\u201c", { size: 220, weight: 800, color: "#d97706" }),
        text("title", "Quote", { x: 120, y: 360, width: 840, height: 560 }, "A quote worth sharing, in a few well-chosen words.", {
          size: 64,
          weight: 700,
          color: "#1c1917",
        }),
        text("subtitle", "Attribution", { x: 120, y: 1000, width: 840, height: 120 }, "\u2014 Name, role", { size: 36, weight: 500, color: "#78350f" }),
      ],
    }),
  },
  {
    id: "tpl_builtin_story",
    name: "Story",
    category: "story",
    preset_key: "story",
    document: doc("story", "Story", 1080, 1920, {
      background_color: "#0f172a",
      background: {
        type: "gradient",
        gradient: {
          type: "linear",
          start: { x: 0, y: 0 },
          end: { x: 0, y: 1920 },
          stops: [
            { color: "#0f172a", offset: 0 },
            { color: "#134e4a", offset: 1 },
          ],
        },
      },
      layers: [
        shape("band", "Top band", { x: 0, y: 0, width: 1080, height: 220 }, "rgba(255, 255, 255, 0.08)"),
        text("kicker", "Kicker", { x: 90, y: 120, width: 900, height: 70 }, "NEW", { size: 40, weight: 700, color: "#5eead4", align: "center" }),
        text("title", "Title", { x: 90, y: 640, width: 900, height: 420 }, "Big news in one line", {
          size: 104,
          weight: 800,
          color: "#ffffff",
          align: "center",
        }),
        text("subtitle", "Subtitle", { x: 90, y: 1090, width: 900, height: 200 }, "Add the detail people need before they tap.", {
          size: 44,
          weight: 400,
          color: "#cbd5e1",
          align: "center",
        }),
        shape("button", "Button", { x: 290, y: 1600, width: 500, height: 120 }, "#5eead4", 60),
        text("button-label", "Button label", { x: 290, y: 1628, width: 500, height: 64 }, "Learn more", {
          size: 44,
          weight: 700,
          color: "#0f172a",
          align: "center",
        }),
      ],
    }),
  },
  {
    id: "tpl_builtin_link_card",
    name: "Link card",
    category: "link_card",
    preset_key: "link_card",
    document: doc("link_card", "Link card", 1200, 630, {
      background_color: "#ffffff",
      background: { type: "color", color: "#ffffff" },
      layers: [
        shape("accent", "Accent bar", { x: 0, y: 0, width: 24, height: 630 }, "#2563eb"),
        text("title", "Title", { x: 80, y: 140, width: 1040, height: 240 }, "The title of the page you are sharing", {
          size: 64,
          weight: 800,
          color: "#0f172a",
        }),
        text("subtitle", "Subtitle", { x: 80, y: 400, width: 1040, height: 100 }, "A one-sentence summary of what readers will find.", {
          size: 32,
          weight: 400,
          color: "#475569",
        }),
        text("domain", "Domain", { x: 80, y: 530, width: 700, height: 50 }, "example.com", { size: 28, weight: 600, color: "#2563eb" }),
      ],
    }),
  },
];

const BY_ID = new Map(BUILT_IN_TEMPLATES.map((t) => [t.id, t]));

export const builtInTemplate = (id: string): BuiltInTemplate | undefined => BY_ID.get(id);

/** Built-in ids share a prefix that workspace template ids (`tpl_<random>`) never produce. */
export const isBuiltInTemplateId = (id: string) => id.startsWith("tpl_builtin_");
