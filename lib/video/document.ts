import { z } from "@hono/zod-openapi";
import { jsonWithin } from "../schemas/common";

/**
 * The video project document (SPEC.md 2.4 leaves its content open). Tracks and clips are maps keyed by
 * their ids, because ids are what mutations address (`target`): a map makes "target → element" direct,
 * lets two people add clips at the same time without fighting over array positions, and is stored by
 * jsonb in one canonical key order. Where order matters it is data: tracks stack by `order` (ties by id),
 * clips sit on the timeline by `start_ms`. Elements keep members Herald does not know (bounded by the
 * document's size and depth), so editors can carry their own data; the top level does not, since nothing
 * could address such members.
 */

export const VIDEO_DOCUMENT_SCHEMA_VERSION = 1;
/** The target that names the project-level `settings`. */
export const PROJECT_TARGET = "project";
export const MAX_TRACKS = 100;
export const MAX_CLIPS = 5_000;
/** Serialised size of a whole document; the JSON request body limit is 1 MiB. */
export const MAX_DOCUMENT_CHARS = 512 * 1024;
/** Elements sit three levels down (`clips` → id → element); their own members may nest a further 32. */
export const MAX_DOCUMENT_DEPTH = 36;
const MAX_MS = 24 * 60 * 60 * 1000;

const ELEMENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

/** A track or clip id: 1–100 of letters, digits, `_ . : -`, starting with a letter or digit; never `project`. */
export const ElementId = z
  .string()
  .regex(ELEMENT_ID, "1 to 100 letters, digits, _ . : or -, starting with a letter or digit")
  .refine((id) => id !== PROJECT_TARGET, { message: `"${PROJECT_TARGET}" is reserved for the project settings` })
  .openapi({ example: "clip-1" });

const Millis = z.number().int().min(0).max(MAX_MS);
const Label = z.string().max(200);

export const VideoSettings = z
  .looseObject({
    width: z.number().int().min(16).max(8192).openapi({ description: "Frame width in px, 16 to 8192" }),
    height: z.number().int().min(16).max(8192).openapi({ description: "Frame height in px, 16 to 8192" }),
    fps: z.number().positive().max(240).openapi({ description: "Frames per second, up to 240" }),
    background_color: z
      .string()
      .regex(/^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, "A colour like #101820 or #10182080")
      .optional(),
    duration_ms: Millis.optional().openapi({ description: "Fixed running time; absent means the end of the last clip" }),
  })
  .openapi("VideoSettings", { description: "Project-level settings: the target `project`. Other members are kept." });

export const VideoTrack = z
  .looseObject({
    kind: z.enum(["video", "audio", "text", "overlay"]),
    name: Label,
    order: z.number().min(-1e9).max(1e9).openapi({ description: "Stacking: higher tracks draw over lower ones; ties by id" }),
    muted: z.boolean().optional(),
    hidden: z.boolean().optional(),
    locked: z.boolean().optional(),
    volume: z.number().min(0).max(4).optional(),
  })
  .superRefine((track, ctx) => {
    // `track_id` is what marks a clip (see VideoClip); a track never has one.
    if ("track_id" in track) ctx.addIssue({ code: "custom", path: ["track_id"], message: "A track has no track_id; only clips do" });
  })
  .openapi("VideoTrack", { description: "A track, keyed by its id in `tracks`. Other members are kept." });

export const VideoClip = z
  .looseObject({
    track_id: ElementId.openapi({ description: "The track the clip is on; an element with a track_id is a clip" }),
    start_ms: Millis.openapi({ description: "Where the clip starts on the timeline" }),
    duration_ms: Millis.min(1).openapi({ description: "How long it plays" }),
    media_id: z.string().max(100).nullable().optional().openapi({ description: "Media library item the clip shows, if any" }),
    trim_start_ms: Millis.optional().openapi({ description: "Offset into the media where playback starts" }),
    name: Label.optional(),
    text: z.string().max(10_000).optional(),
    volume: z.number().min(0).max(4).optional(),
    opacity: z.number().min(0).max(1).optional(),
  })
  .openapi("VideoClip", { description: "A clip, keyed by its id in `clips`. Other members are kept." });

export const VideoDocument = z
  .strictObject({
    schema_version: z
      .number()
      .int()
      .min(1)
      .max(VIDEO_DOCUMENT_SCHEMA_VERSION)
      .openapi({ description: `Document format version; ${VIDEO_DOCUMENT_SCHEMA_VERSION} is current` }),
    settings: VideoSettings,
    tracks: z.record(ElementId, VideoTrack).refine((m) => Object.keys(m).length <= MAX_TRACKS, { message: `At most ${MAX_TRACKS} tracks` }),
    clips: z.record(ElementId, VideoClip).refine((m) => Object.keys(m).length <= MAX_CLIPS, { message: `At most ${MAX_CLIPS} clips` }),
  })
  .superRefine((doc, ctx) => {
    for (const id of Object.keys(doc.clips)) {
      if (Object.hasOwn(doc.tracks, id))
        ctx.addIssue({ code: "custom", path: ["clips", id], message: `The id ${id} is already a track's; ids are unique across tracks and clips` });
      const trackId = doc.clips[id].track_id;
      if (!Object.hasOwn(doc.tracks, trackId)) ctx.addIssue({ code: "custom", path: ["clips", id, "track_id"], message: `No track ${trackId}` });
    }
    if (!jsonWithin(doc, MAX_DOCUMENT_CHARS, MAX_DOCUMENT_DEPTH)) {
      ctx.addIssue({ code: "custom", path: [], message: `At most ${MAX_DOCUMENT_CHARS} characters of JSON, nested at most ${MAX_DOCUMENT_DEPTH} deep` });
    }
  })
  .openapi("VideoDocument", {
    description:
      "A video project's timeline. `tracks` and `clips` map ids to elements; a clip's `track_id` names its track. Ids are unique across tracks and clips. " +
      `At most ${MAX_TRACKS} tracks, ${MAX_CLIPS} clips and ${MAX_DOCUMENT_CHARS} characters of JSON.`,
  });

export type VideoDocument = z.infer<typeof VideoDocument>;

/** A validation problem in a document, located by the path of segments inside it. */
export interface DocumentIssue {
  path: (string | number)[];
  message: string;
}

/** Every problem of a candidate document (at most 50), or none. */
export function documentIssues(candidate: unknown): DocumentIssue[] {
  const result = VideoDocument.safeParse(candidate);
  if (result.success) return [];
  return result.error.issues.slice(0, 50).map((i) => ({ path: i.path.map((p) => (typeof p === "number" ? p : String(p))), message: i.message }));
}
