import type { ImageDocumentValue } from "../lib/image-editor/document";

/** A valid four-layer document (text, shape, image, text); each call returns a fresh copy to mutate. */
export function sampleDocument(mediaId: string | null = null): ImageDocumentValue {
  return {
    schema_version: 1,
    title: "Launch card",
    width_px: 1080,
    height_px: 1080,
    preset_key: "square_post",
    export_defaults: { format: "png", quality: 0.9, matte_color: "#ffffff" },
    pages: [
      {
        id: "page-1",
        name: "Page 1",
        background_color: "#ffffff",
        background: { type: "color", color: "#ffffff", opacity: 1 },
        layers: [
          {
            id: "title",
            name: "Headline",
            type: "text",
            locked: false,
            visible: true,
            opacity: 1,
            transform: { x: 40, y: 40, width: 1000, height: 200, rotation: 0 },
            text: { text: "Hello", font_size: 64, font_weight: 700, wrap: "word", align: "left", color: "#111827" },
          },
          {
            id: "band",
            name: "Band",
            type: "shape",
            locked: false,
            visible: true,
            opacity: 0.8,
            transform: { x: 0, y: 900, width: 1080, height: 180, rotation: 0 },
            shape: { kind: "rectangle", fill: "rgba(17, 24, 39, 0.9)", radius: 0 },
          },
          {
            id: "photo",
            name: "Photo",
            type: "image",
            locked: false,
            visible: true,
            opacity: 1,
            transform: { x: 540, y: 300, width: 480, height: 480, rotation: 5 },
            image: { media_id: mediaId, fit: "cover", crop: { x: 0, y: 0, width: 1, height: 1 } },
          },
          {
            id: "subtitle",
            name: "Subtitle",
            type: "text",
            locked: false,
            visible: true,
            opacity: 1,
            transform: { x: 40, y: 260, width: 460, height: 120, rotation: 0 },
            text: { text: "Out now", font_size: 32, font_weight: 400 },
          },
        ],
      },
    ],
  };
}
