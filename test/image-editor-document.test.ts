import { describe, expect, it } from "vitest";
import { ImageDocument } from "../lib/image-editor/document";
import { BUILT_IN_TEMPLATES, builtInTemplate, isBuiltInTemplateId } from "../lib/image-editor/built-in-templates";
import { documentIssues, referencedMediaIds } from "../lib/image-editor/document-rules";
import { sampleDocument } from "./image-editor-fixtures";

/** Issue paths as the API names them, e.g. pages[0].layers[3].opacity. */
const locations = (value: unknown) => {
  const result = ImageDocument.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((i) =>
    i.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, ""),
  );
};

describe("ImageDocument schema", () => {
  it("accepts the sample document and every built-in template", () => {
    expect(locations(sampleDocument())).toEqual([]);
    for (const t of BUILT_IN_TEMPLATES) expect(locations(t.document), t.id).toEqual([]);
  });

  it("names the offending field for out-of-range values", () => {
    const doc = sampleDocument();
    doc.pages[0].layers[3].opacity = 2;
    expect(locations(doc)).toEqual(["pages[0].layers[3].opacity"]);
    expect(locations({ ...sampleDocument(), width_px: 0 })).toEqual(["width_px"]);
    expect(locations({ ...sampleDocument(), height_px: 8193 })).toEqual(["height_px"]);
    expect(locations({ ...sampleDocument(), width_px: 10.5 })).toEqual(["width_px"]);
    expect(locations({ ...sampleDocument(), title: "t".repeat(100_000) })).toEqual(["title"]);
    expect(locations({ ...sampleDocument(), schema_version: 2 })).toEqual(["schema_version"]);
    expect(locations({ ...sampleDocument(), pages: [] })).toEqual(["pages"]);
    expect(locations({ ...sampleDocument(), pages: Array.from({ length: 51 }, (_, i) => ({ id: `p${i}`, name: "P", layers: [] })) })).toEqual(["pages"]);
    const many = sampleDocument();
    many.pages[0].layers = Array.from({ length: 501 }, (_, i) => ({ ...many.pages[0].layers[0], id: `l${i}` }));
    expect(locations(many)).toEqual(["pages[0].layers"]);
  });

  it("closes the enumerations with a standard value set and checks colours", () => {
    const doc = sampleDocument();
    (doc.pages[0].layers[0] as { type: string }).type = "hologram";
    expect(locations(doc)).toEqual(["pages[0].layers[0].type"]);
    expect(locations({ ...sampleDocument(), export_defaults: { format: "gif" } })).toEqual(["export_defaults.format"]);
    const blend = sampleDocument();
    blend.pages[0].layers[1].effects = { blend_mode: "sparkle" as "normal" };
    expect(locations(blend)).toEqual(["pages[0].layers[1].effects.blend_mode"]);
    const color = sampleDocument();
    color.pages[0].background_color = "red; background: url(x)";
    expect(locations(color)).toEqual(["pages[0].background_color"]);
    for (const ok of ["#fff", "#ffff", "#a1b2c3", "#a1b2c3d4", "rgb(1, 2, 3)", "rgba(255,255,255,0.5)", "transparent"]) {
      expect(locations({ ...sampleDocument(), export_defaults: { matte_color: ok } }), ok).toEqual([]);
    }
    for (const bad of ["#ggg", "rgb(256,0,0)", "rgba(1,2,3,2)", "blue", ""]) {
      expect(locations({ ...sampleDocument(), export_defaults: { matte_color: bad } }), bad).toEqual(["export_defaults.matte_color"]);
    }
  });

  it("requires positive layer sizes and bounded numbers everywhere", () => {
    const doc = sampleDocument();
    doc.pages[0].layers[2].transform.width = 0;
    doc.pages[0].layers[2].transform.rotation = 1e9;
    expect(locations(doc).sort()).toEqual(["pages[0].layers[2].transform.rotation", "pages[0].layers[2].transform.width"]);
    const text = sampleDocument();
    text.pages[0].layers[0].text!.font_size = -3;
    expect(locations(text)).toEqual(["pages[0].layers[0].text.font_size"]);
  });
});

describe("document rules", () => {
  const layer = (id: string, type = "text", parent_id?: string | null) => ({ id, type, parent_id });

  it("page ids unique, layer ids unique per page, parents are groups on the same page without cycles", () => {
    expect(
      documentIssues({
        pages: [
          { id: "a", layers: [layer("g", "group"), layer("t", "text", "g")] },
          { id: "b", layers: [layer("g", "group")] },
        ],
      }),
    ).toEqual([]);
    expect(
      documentIssues({
        pages: [
          { id: "a", layers: [] },
          { id: "a", layers: [] },
        ],
      }),
    ).toEqual([{ path: ["pages", 1, "id"], message: expect.any(String) }]);
    expect(documentIssues({ pages: [{ id: "a", layers: [layer("x"), layer("x")] }] }).map((i) => i.path)).toEqual([["pages", 0, "layers", 1, "id"]]);
    const parents = documentIssues({
      pages: [
        {
          id: "a",
          layers: [
            layer("t1", "text", "missing"),
            layer("t2", "text", "t3"),
            layer("t3"),
            layer("self", "group", "self"),
            layer("g1", "group", "g2"),
            layer("g2", "group", "g1"),
          ],
        },
      ],
    });
    expect(parents.map((i) => i.path[3])).toEqual([0, 1, 3, 4, 5]);
    expect(parents.map((i) => i.message)).toEqual([
      "No layer missing on this page",
      "Layer t3 is a text layer, not a group",
      "A layer cannot be its own parent",
      "Parent links form a cycle",
      "Parent links form a cycle",
    ]);
  });

  it("reports rule findings through the schema with their path", () => {
    const doc = sampleDocument();
    doc.pages[0].layers[1].id = doc.pages[0].layers[0].id;
    expect(locations(doc)).toEqual(["pages[0].layers[1].id"]);
  });

  it("collects media used by image layers and page backgrounds, once each", () => {
    expect(
      referencedMediaIds({
        pages: [
          { background: { image: { media_id: "med_bg" } }, layers: [{ image: { media_id: "med_1" } }, {}, { image: { media_id: null } }] },
          { layers: [{ image: { media_id: "med_1" } }, { image: { media_id: "med_2" } }] },
        ],
      }).sort(),
    ).toEqual(["med_1", "med_2", "med_bg"]);
  });
});

describe("built-in templates", () => {
  it("covers the common social sizes with stable ids and real layouts", () => {
    const sizes = BUILT_IN_TEMPLATES.map((t) => `${t.document.width_px}x${t.document.height_px}`);
    expect(sizes).toEqual(expect.arrayContaining(["1080x1080", "1080x1920", "1200x630"]));
    for (const t of BUILT_IN_TEMPLATES) {
      expect(isBuiltInTemplateId(t.id)).toBe(true);
      expect(builtInTemplate(t.id)).toBe(t);
      const types = t.document.pages[0].layers.map((l) => l.type);
      expect(types).toContain("text");
      expect(types).toContain("shape");
      expect(t.document.pages[0].layers.map((l) => l.id)).toEqual(expect.arrayContaining(["title", "subtitle"]));
      expect(t.document.pages[0].background).toBeDefined();
      // Every layer sits on the canvas.
      for (const l of t.document.pages[0].layers) {
        expect(l.transform.x + l.transform.width, `${t.id}/${l.id}`).toBeLessThanOrEqual(t.document.width_px);
        expect(l.transform.y + l.transform.height, `${t.id}/${l.id}`).toBeLessThanOrEqual(t.document.height_px);
      }
    }
    expect(isBuiltInTemplateId("tpl_0123456789abcdefghijklmn")).toBe(false);
  });
});
