import type { VideoDocument } from "./document";

/** What a project starts from when it is created without a document: vertical 1080×1920 at 30 fps, no tracks. */
export function emptyVideoDocument(): VideoDocument {
  return { schema_version: 1, settings: { width: 1080, height: 1920, fps: 30, background_color: "#000000" }, tracks: {}, clips: {} };
}

/** A small, valid project: the OpenAPI example, and a starting point for tests and benchmarks. */
export function sampleVideoDocument(): VideoDocument {
  return {
    schema_version: 1,
    settings: { width: 1080, height: 1920, fps: 30, background_color: "#101820" },
    tracks: {
      "track-video": { kind: "video", name: "Main", order: 0 },
      "track-text": { kind: "text", name: "Captions", order: 1 },
    },
    clips: {
      "clip-intro": { track_id: "track-video", start_ms: 0, duration_ms: 4000, media_id: null, name: "Intro" },
      "clip-title": { track_id: "track-text", start_ms: 500, duration_ms: 3000, text: "Launch day", style: { color: "#ffffff", size: 64 } },
    },
  };
}
