import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import { parseBuffer } from "music-metadata";
import type { MediaType } from "../../db/schema/media";
import { displayed, dominantType, rotationOfExif, rotationOfMatrix } from "./classify";
import { audioCodecName, describedAudioCodec, videoCodecName, videoProfile } from "./codecs";
import { readMovie } from "./mp4";

/** What the bytes of an upload say they are; every field is detected, none is taken from the client. */
export interface DetectedMedia {
  mimeType: string;
  mediaType: MediaType;
  /** Container or format name, e.g. png, mp4, mov, mp3. */
  containerFormat: string;
  width: number | null;
  height: number | null;
  rotation: number | null;
  durationMs: number | null;
  frameRate: number | null;
  bitRate: number | null;
  audioChannels: number | null;
  audioCodec: string | null;
  videoCodec: string | null;
  videoProfile: string | null;
}

export type Detection = { ok: true; media: DetectedMedia } | { ok: false; reason: string };

/** Containers mp4box reads (ISO BMFF and QuickTime). */
const ISO_BMFF = new Set(["video/mp4", "video/quicktime", "video/x-m4v", "video/3gpp", "video/3gpp2"]);
/** file-type's names for a few types, as browsers and players know them. */
const CANONICAL: Record<string, string> = { "audio/x-m4a": "audio/mp4", "audio/x-wav": "audio/wav" };

const empty = {
  width: null,
  height: null,
  rotation: null,
  durationMs: null,
  frameRate: null,
  bitRate: null,
  audioChannels: null,
  audioCodec: null,
  videoCodec: null,
  videoProfile: null,
};
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
const intOrNull = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : null);

/**
 * Identify an upload from its bytes (magic numbers, then the format's own headers). Anything that is not
 * an image, video or audio file, or that claims to be one but cannot be read, is refused with a reason.
 */
export async function detectMedia(bytes: Uint8Array): Promise<Detection> {
  if (bytes.byteLength === 0) return { ok: false, reason: "The file is empty." };
  const type = await fileTypeFromBuffer(bytes);
  if (!type) return { ok: false, reason: "The file is not a recognised image, video or audio format." };
  const mimeType = CANONICAL[type.mime] ?? type.mime;
  const mediaType = dominantType(mimeType);
  if (!mediaType) return { ok: false, reason: `The file is ${type.mime}, which is not an image, video or audio file.` };
  const base = { ...empty, mimeType, mediaType, containerFormat: type.ext };
  if (mediaType === "image") return image(bytes, base);
  if (ISO_BMFF.has(mimeType)) return movie(bytes, base);
  return timed(bytes, base);
}

function image(bytes: Uint8Array, base: DetectedMedia): Detection {
  try {
    const size = imageSize(bytes);
    if (!size.width || !size.height) return { ok: false, reason: "The image has no readable dimensions." };
    const rotation = rotationOfExif(size.orientation);
    return { ok: true, media: { ...base, ...displayed(size.width, size.height, rotation), rotation } };
  } catch {
    return { ok: false, reason: `The file looks like ${base.mimeType} but its header could not be read.` };
  }
}

function movie(bytes: Uint8Array, base: DetectedMedia): Detection {
  const info = readMovie(bytes);
  const tracks = info?.tracks ?? [];
  const video = info?.videoTracks[0];
  const audio = info?.audioTracks[0];
  if (!info || (!video && !audio)) return { ok: false, reason: `The file looks like ${base.mimeType} but holds no readable audio or video track.` };
  const seconds =
    info.duration && info.timescale ? info.duration / info.timescale : Math.max(...tracks.map((t) => (t.timescale ? t.duration / t.timescale : 0)));
  const bitRate = tracks.reduce((sum, t) => sum + (Number.isFinite(t.bitrate) ? t.bitrate : 0), 0);
  const common = {
    durationMs: intOrNull(seconds * 1000),
    bitRate: intOrNull(bitRate),
    audioChannels: audio?.audio?.channel_count ?? null,
    audioCodec: audio ? audioCodecName(audio.codec) : null,
  };
  if (!video) {
    // An MP4 with sound only is audio, whatever its brand says.
    return { ok: true, media: { ...base, ...common, mimeType: "audio/mp4", mediaType: "audio" } };
  }
  const trackSeconds = video.timescale ? video.duration / video.timescale : 0;
  const rotation = rotationOfMatrix(video.matrix);
  const width = video.video?.width || video.track_width;
  const height = video.video?.height || video.track_height;
  return {
    ok: true,
    media: {
      ...base,
      ...common,
      ...(width && height ? displayed(width, height, rotation) : { width: null, height: null }),
      rotation,
      frameRate: trackSeconds > 0 && video.nb_samples > 0 ? round(video.nb_samples / trackSeconds, 3) : null,
      videoCodec: videoCodecName(video.codec),
      videoProfile: videoProfile(video.codec),
    },
  };
}

/** Audio of any kind, and video containers other than MP4 / MOV (WebM, Matroska …): duration and audio facts. */
async function timed(bytes: Uint8Array, base: DetectedMedia): Promise<Detection> {
  try {
    const { format } = await parseBuffer(bytes, { mimeType: base.mimeType }, { duration: true, skipCovers: true });
    return {
      ok: true,
      media: {
        ...base,
        durationMs: intOrNull(format.duration !== undefined ? format.duration * 1000 : undefined),
        bitRate: intOrNull(format.bitrate),
        audioChannels: format.numberOfChannels ?? null,
        audioCodec: describedAudioCodec(format.codec),
      },
    };
  } catch {
    // Audio must be readable; a video container music-metadata does not know is kept without details.
    if (base.mediaType === "video") return { ok: true, media: base };
    return { ok: false, reason: `The file looks like ${base.mimeType} but could not be read.` };
  }
}
